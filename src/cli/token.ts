import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseScopes } from '../auth';
import { resolveTokenSecret } from '../auth/secret';
import { parseTtl, revocationTarget, TokenSigner } from '../auth/tokens';
import { ConfigError, loadConfig, type Config } from '../config';
import { createLogger } from '../logger';
import { DomainError } from '../model/errors';
import { Neo4jExecutor } from '../stores/graph/neo4j-executor';
import { TokenStore } from '../stores/graph/token-store';

/** The project root, from src/cli/ under tsx and from dist/cli/ in the compiled build (`node dist/cli/token.js`). */
const ROOT_DIR = join(__dirname, '..', '..');

const USAGE = `Access tokens of the metadata service.

  npm run token -- [issue] --actor <urn> [--scopes read,write,admin] [--ttl 30d]
      Prints a new token on stdout (its id and expiry on stderr). Scopes: read, write, admin (each implies the ones
      before it); default read. ttl: 90s, 45m, 12h, 30d, 2w or seconds; default 30d.

  npm run token -- revoke <token|jti>
      Revokes a token (by the token itself or its id) in Neo4j; the service refuses it from the next request on.

Compiled (the Docker image): \`node dist/cli/token.js …\` with the same arguments, e.g.
  docker compose exec metadata-service node dist/cli/token.js --actor urn:li:corpuser:admin --scopes admin

The signing secret is TOKEN_SECRET, else the one kept in <STACK_DIR>/token-secret (what \`npm start\` uses).
Revoking talks to NEO4J_URI, else to the local stack's Neo4j, which must be running.`;

/** Bad arguments: the message is followed by the usage. */
class UsageError extends Error {}
/** A failure the user can act on: the message alone. */
class CommandError extends Error {}

async function issue(config: Config, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: { actor: { type: 'string' }, scopes: { type: 'string', default: 'read' }, ttl: { type: 'string', default: '30d' } },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new UsageError(`Unexpected argument '${positionals[0]}'`);
  if (!values.actor) throw new UsageError('--actor is required, e.g. --actor urn:li:corpuser:ingestion-bot');
  const signer = new TokenSigner(resolveTokenSecret(config, ROOT_DIR).secret);
  const { token, claims } = await signer.issue({ actor: values.actor, scopes: parseScopes(values.scopes), ttlSeconds: parseTtl(values.ttl) });
  console.error(`actor ${claims.actor}\nscopes ${claims.scopes.join(',')}\njti ${claims.jti}\nexpires ${new Date(claims.expiresAt * 1000).toISOString()}`);
  console.log(token);
}

async function neo4jUri(config: Config): Promise<string> {
  if (config.NEO4J_URI) return config.NEO4J_URI;
  const stack = await import('../../stack');
  const neo4j = stack.stackStatus(join(ROOT_DIR, config.STACK_DIR)).neo4j;
  if (!neo4j.running || !neo4j.url) throw new CommandError('Neo4j is not running: start the service with `npm start` (or set NEO4J_URI)');
  return neo4j.url;
}

async function revoke(config: Config, args: string[]): Promise<void> {
  const { positionals } = parseArgs({ args, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError('revoke takes one argument: the token or its jti');
  const target = revocationTarget(positionals[0]);
  const graph = new Neo4jExecutor(
    {
      uri: await neo4jUri(config),
      user: config.NEO4J_USER,
      password: config.NEO4J_PASSWORD,
      database: config.NEO4J_DATABASE,
      timeoutMs: config.BACKEND_TIMEOUT_MS,
      cypherDir: join(ROOT_DIR, 'cypher'),
    },
    createLogger('error'),
  );
  try {
    await new TokenStore(graph).revoke(target.jti, target.expiresAt);
  } finally {
    await graph.close();
  }
  console.log(`revoked ${target.jti}`);
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return;
  }
  const config = loadConfig();
  const [command, ...rest] = argv;
  if (command === 'revoke') return revoke(config, rest);
  return issue(config, command === 'issue' ? rest : argv);
}

main(process.argv.slice(2)).catch((err) => {
  const known = err instanceof UsageError || err instanceof CommandError || err instanceof DomainError || err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  console.error(known ? (err as Error).message : err);
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) console.error(`\n${USAGE}`);
  process.exit(known ? 2 : 1);
});
