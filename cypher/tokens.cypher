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

// @name revokedAmong
// Which of $jtis are revoked: the revocation checks of concurrent requests share one lookup (SharedRevocationChecks).
UNWIND $jtis AS jti
MATCH (t:RevokedToken {jti: jti})
RETURN t.jti AS jti
