import type { Neo4jExecutor } from './neo4j-executor';

/** Revoked access tokens in Neo4j, keyed by jti. Statements live in cypher/tokens.cypher. */
export class TokenStore {
  constructor(private readonly neo4j: Neo4jExecutor) {}

  /** Revokes a token id; `expiresAt` (epoch seconds) lets the revocation be purged once the token has expired. */
  async revoke(jti: string, expiresAt: number | null, now: number = Date.now()): Promise<{ revokedAt: number }> {
    return this.neo4j.write('tokens.revoke', async (tx) => {
      const result = await tx.run(this.neo4j.cypher.get('tokens/revoke'), { jti, expiresAt, now, nowSeconds: Math.floor(now / 1000) });
      return { revokedAt: Number(result.records[0].get('revokedAt')) };
    });
  }

  /** Which of the token ids are revoked. */
  async revokedAmong(jtis: string[]): Promise<Set<string>> {
    const records = await this.neo4j.query('tokens.revokedAmong', 'tokens/revokedAmong', { jtis });
    return new Set(records.map((r) => r.get('jti') as string));
  }
}
