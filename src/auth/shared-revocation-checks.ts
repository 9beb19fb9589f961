import type { RevocationList } from './token-authenticator';

/**
 * Revocation checks of concurrent requests answered by shared lookups: one lookup at a time, each for every token id
 * asked about since the one before it began. A check is answered only by a lookup that begins after the check was
 * asked, so a token revoked before a request arrives is refused on that request, as with a lookup per request; under
 * load (an ingestion client sends its one token with every proposal) the lookups are one per round trip, not one per
 * request.
 */
export class SharedRevocationChecks implements RevocationList {
  /** Whether a lookup is running; checks asked meanwhile wait for the next one. */
  private running = false;
  /** The token ids of the next lookup and the checks waiting for it. */
  private next: Map<string, ((revoked: boolean) => void)[]> | null = null;
  private failures: ((err: unknown) => void)[] = [];

  /** `revokedAmong` answers which of the ids are revoked. */
  constructor(private readonly revokedAmong: (jtis: string[]) => Promise<ReadonlySet<string>>) {}

  isRevoked(jti: string): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.next ??= new Map();
      const waiting = this.next.get(jti);
      if (waiting) waiting.push(resolve);
      else this.next.set(jti, [resolve]);
      this.failures.push(reject);
      if (!this.running) void this.lookUp();
    });
  }

  private async lookUp(): Promise<void> {
    this.running = true;
    while (this.next) {
      const batch = this.next;
      const failures = this.failures;
      this.next = null;
      this.failures = [];
      try {
        const revoked = await this.revokedAmong([...batch.keys()]);
        for (const [jti, waiting] of batch) for (const resolve of waiting) resolve(revoked.has(jti));
      } catch (err) {
        for (const reject of failures) reject(err);
      }
    }
    this.running = false;
  }
}
