import { UnauthorizedError } from '../model/errors';

/**
 * Whether a request's token has been revoked, settled once: by a lookup of its own (`confirm`), by the write
 * transaction that committed the request's writes, which read the revocations itself before writing (`committed`), or
 * by a read's statement that read them beside what it read (`checkedByRead`: a lineage walk's first statement).
 * A request that changes nothing but through such a transaction, or reads only through such a statement, needs no
 * lookup of its own: the statement's check is later than one made on arrival, and costs a seek in a statement it runs
 * anyway instead of a transaction of its own.
 */
export class RevocationCheck {
  private lookup: Promise<void> | null = null;
  private settledByStatement = false;

  /** `tokenId` null: no token was presented, so nothing is to be checked. */
  constructor(
    readonly tokenId: string | null,
    private readonly isRevoked: (jti: string) => Promise<boolean>,
  ) {}

  /** Known not revoked (or no token): nothing is left to check. */
  get settled(): boolean {
    return this.tokenId === null || this.settledByStatement;
  }

  /** Looks the token up (once; later calls share the answer): rejects with the 401 when it has been revoked. */
  confirm(): Promise<void> {
    const jti = this.tokenId;
    if (this.settled || jti === null) return Promise.resolve();
    this.lookup ??= this.isRevoked(jti).then((revoked) => {
      if (revoked) throw revokedError(jti);
    });
    return this.lookup;
  }

  /** A transaction that checked the token among the revocations has committed the request's writes. */
  committed(): void {
    this.settledByStatement = true;
  }

  /** A read statement looked the token up among the revocations: settled, or refused from now on with the 401. */
  checkedByRead(revoked: boolean): void {
    const jti = this.tokenId;
    if (jti === null) return;
    if (!revoked) this.settledByStatement = true;
    else if (!this.lookup) {
      this.lookup = Promise.reject(revokedError(jti));
      // Rejected for whoever confirms; not an unhandled rejection meanwhile.
      this.lookup.catch(() => undefined);
    }
  }
}

export function revokedError(jti: string): UnauthorizedError {
  return new UnauthorizedError(`Access token ${jti} has been revoked`);
}

/** The check of a request that presented no token. */
export const NO_TOKEN: RevocationCheck = new RevocationCheck(null, () => Promise.resolve(false));
