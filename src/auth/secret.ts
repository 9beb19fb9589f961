import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const SECRET_FILE = 'token-secret';

/**
 * The HS256 secret of access tokens: TOKEN_SECRET when set, else a random secret generated once into
 * `<STACK_DIR>/token-secret` (mode 0600) and read from there afterwards, so `npm start` and `npm run token` agree.
 */
export function resolveTokenSecret(config: { TOKEN_SECRET?: string; STACK_DIR: string }, rootDir: string): { secret: string; source: string } {
  if (config.TOKEN_SECRET) return { secret: config.TOKEN_SECRET, source: 'TOKEN_SECRET' };
  const file = join(resolve(rootDir, config.STACK_DIR), SECRET_FILE);
  mkdirSync(dirname(file), { recursive: true });
  // Written whole to a temporary file, then hard-linked into place: link fails if the file exists, so two processes
  // starting together agree on one secret and neither can read a half-written file.
  if (!existsSync(file)) {
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    try {
      linkSync(temporary, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      unlinkSync(temporary);
    }
  }
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 32) throw new Error(`${file} holds a secret shorter than 32 characters; delete it to generate a new one`);
  return { secret, source: file };
}
