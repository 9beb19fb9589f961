// Revoked access tokens, by jti (constraint revoked_token_unique in schema.cypher).

// @name revoke
// Idempotent: revoking twice keeps the first revocation time. Revocations of tokens that have expired are purged
// on the way, since an expired token is refused anyway.
MERGE (t:RevokedToken {jti: $jti})
  ON CREATE SET t.revokedAt = $now, t.expiresAt = $expiresAt
WITH t
OPTIONAL MATCH (old:RevokedToken)
WHERE old.expiresAt IS NOT NULL AND old.expiresAt < $nowSeconds AND old.jti <> $jti
DETACH DELETE old
RETURN DISTINCT t.revokedAt AS revokedAt

// @name isRevoked
OPTIONAL MATCH (t:RevokedToken {jti: $jti})
RETURN t IS NOT NULL AS revoked
