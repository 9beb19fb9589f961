import { join } from 'node:path';
import { applyHeapGrowth, ConfigError, loadConfig } from '../config';
import { startService, ROOT_DIR } from '../service';

/**
 * `npm start`: with no backend addresses configured, starts the local stack (Neo4j + OpenSearch, data kept in
 * .stack/) and the service on 127.0.0.1:8080; Ctrl-C stops everything. With NEO4J_URI / SEARCH_URL set, uses those.
 */
async function main() {
  const config = loadConfig();
  applyHeapGrowth(config);
  let stopStack: (() => Promise<void>) | null = null;
  let backends;
  if (config.NEO4J_URI && config.SEARCH_URL) {
    backends = { neo4jUri: config.NEO4J_URI, searchUrl: config.SEARCH_URL, searchEngine: config.SEARCH_ENGINE };
  } else {
    const stack = await import('../../stack');
    const root = join(ROOT_DIR, config.STACK_DIR);
    const engine = config.SEARCH_ENGINE;
    const servers = await stack.startServers({
      root,
      servers: ['neo4j', engine],
      persistent: true,
      ports: { neo4j: config.STACK_NEO4J_PORT, [engine]: config.STACK_SEARCH_PORT },
      log: (line: string) => console.log(`[stack] ${line}`),
    });
    stopStack = () => stack.stopServers(['neo4j', engine], root);
    backends = { neo4jUri: servers.neo4j.url, searchUrl: servers[engine].url, searchEngine: engine };
  }
  const service = await startService(config, backends);
  console.log(`\nMetadata service   ${service.url}   (health: ${service.url}/health)`);
  console.log(`Neo4j              ${backends.neo4jUri}`);
  console.log(`Search (${backends.searchEngine})  ${backends.searchUrl}`);
  console.log(stopStack ? 'Ctrl-C stops the service and the local stack.\n' : 'Ctrl-C stops the service.\n');

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping…');
    await service.close().catch(() => undefined);
    if (stopStack) await stopStack();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err instanceof Error ? err.message : err);
  process.exit(1);
});
