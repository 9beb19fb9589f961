import { NO_TOKEN, RevocationCheck } from '../../src/auth/revocation-check';
import { UnauthorizedError } from '../../src/model/errors';

describe('RevocationCheck', () => {
  it('looks a token up once, however often it is confirmed, and refuses a revoked one with the 401', async () => {
    const lookups: string[] = [];
    const check = new RevocationCheck('jti-1', async (jti) => (lookups.push(jti), true));
    expect(check.settled).toBe(false);
    await expect(check.confirm()).rejects.toThrow(new UnauthorizedError('Access token jti-1 has been revoked'));
    await expect(check.confirm()).rejects.toBeInstanceOf(UnauthorizedError);
    expect(lookups).toEqual(['jti-1']);
  });

  it('needs no lookup once a commit that checked the token has settled it', async () => {
    const isRevoked = jest.fn(async () => true);
    const check = new RevocationCheck('jti-2', isRevoked);
    check.committed();
    expect(check.settled).toBe(true);
    await expect(check.confirm()).resolves.toBeUndefined();
    expect(isRevoked).not.toHaveBeenCalled();
  });

  it('needs no lookup once a read statement found the token not revoked, and refuses it without one when it found it revoked', async () => {
    const isRevoked = jest.fn(async () => false);
    const live = new RevocationCheck('jti-3', isRevoked);
    live.checkedByRead(false);
    expect(live.settled).toBe(true);
    await expect(live.confirm()).resolves.toBeUndefined();
    const gone = new RevocationCheck('jti-4', isRevoked);
    gone.checkedByRead(true);
    expect(gone.settled).toBe(false);
    await expect(gone.confirm()).rejects.toThrow(new UnauthorizedError('Access token jti-4 has been revoked'));
    expect(isRevoked).not.toHaveBeenCalled();
  });

  it('has nothing to check without a token', async () => {
    expect(NO_TOKEN.settled).toBe(true);
    expect(NO_TOKEN.tokenId).toBeNull();
    await expect(NO_TOKEN.confirm()).resolves.toBeUndefined();
  });
});
