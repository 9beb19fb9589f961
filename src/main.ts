import { applyHeapGrowth, ConfigError, loadConfig } from './config';
import { startService } from './service';

/** Runs the service against backends given by NEO4J_URI / SEARCH_URL / SEARCH_ENGINE (no local stack). */
async function main() {
  const config = loadConfig();
  applyHeapGrowth(config);
  if (!config.NEO4J_URI || !config.SEARCH_URL) {
    throw new ConfigError('NEO4J_URI and SEARCH_URL are required for `npm run serve`; use `npm start` to run with the local stack');
  }
  const service = await startService(config, { neo4jUri: config.NEO4J_URI, searchUrl: config.SEARCH_URL, searchEngine: config.SEARCH_ENGINE });
  service.logger.info({ url: service.url }, 'metadata service listening');
  const stop = async () => {
    await service.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
