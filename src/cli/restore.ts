import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config';
import { createLogger } from '../logger';
import { DomainError } from '../model/errors';
import { createBackendClients, createOfflineWritePath, ROOT_DIR } from '../service';
import { SearchIndexer } from '../services/indexing/indexer';
import { RestoreService, type RestoreCounts } from '../services/restore';
import { AspectStore } from '../stores/graph/aspect-store';
import { OutboxStore } from '../stores/graph/outbox-store';
import { RestoreStore } from '../stores/graph/restore-store';
import type { EngineName } from '../stores/search/engine';
import { IndexNames } from '../stores/search/mappings';

const USAGE = `Usage: npm run restore -- [--urn <urn>] [--aspect <aspect>] [--urnLike <pattern with %>] [--batchSize <n>] [--all]

Rewrites search documents and projected edges from the latest aspects in Neo4j, batch after batch, ordered by urn.
  --urn        restore one entity
  --aspect     restore entities holding this aspect (edges of this aspect only)
  --urnLike    restore entities whose urn matches the pattern (% = any characters)
  --batchSize  entities per batch (default 1000)
  --all        restore every entity (required when no filter is given)
Backends: NEO4J_URI and SEARCH_URL (with SEARCH_ENGINE, SEARCH_INDEX_PREFIX…) as for npm start, else the running local stack.`;

/** The addresses `npm start` would use: the configured backends, else the local stack it keeps in STACK_DIR. */
async function backends(config: Config): Promise<{ neo4jUri: string; searchUrl: string; searchEngine: EngineName }> {
  if (config.NEO4J_URI && config.SEARCH_URL) return { neo4jUri: config.NEO4J_URI, searchUrl: config.SEARCH_URL, searchEngine: config.SEARCH_ENGINE };
  const stack = await import('../../stack');
  const root = join(ROOT_DIR, config.STACK_DIR);
  const status = stack.stackStatus(root);
  const engine = config.SEARCH_ENGINE;
  if (!status.neo4j.running || !status[engine].running) {
    throw new ConfigError(`The local stack (${root}) is not running: start it with npm start, or set NEO4J_URI and SEARCH_URL`);
  }
  return { neo4jUri: status.neo4j.url!, searchUrl: status[engine].url!, searchEngine: engine };
}

function progress(counts: RestoreCounts): string {
  const seconds = Math.max(counts.timeTakenMs, 1) / 1000;
  return (
    `${counts.entitiesRead.toLocaleString('en')} entities, ${counts.rowsRead.toLocaleString('en')} aspects, ` +
    `${counts.documentsWritten.toLocaleString('en')} documents, ${counts.edgesWritten.toLocaleString('en')} edges, ` +
    `${counts.ignored} ignored — ${Math.round(counts.rowsRead / seconds).toLocaleString('en')} aspects/s`
  );
}

async function main() {
  const { values } = parseArgs({
    options: {
      urn: { type: 'string' },
      aspect: { type: 'string' },
      urnLike: { type: 'string' },
      batchSize: { type: 'string', default: '1000' },
      all: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const batchSize = Number(values.batchSize);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10000) throw new ConfigError('--batchSize must be an integer from 1 to 10000');
  if (!values.all && !values.urn && !values.aspect && !values.urnLike) throw new ConfigError(`Nothing selected: pass --all or a filter.\n\n${USAGE}`);

  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL);
  const addresses = await backends(config);
  const { registry, graph, search } = createBackendClients(config, addresses, logger, Math.max(config.BACKEND_TIMEOUT_MS, 30_000));
  let writePath: { close(): Promise<void> } | null = null;
  try {
    const names = new IndexNames(config.SEARCH_INDEX_PREFIX);
    // Only its ensureIndices() is used: the indexer is not started.
    const aspectStore = new AspectStore(graph, config.SEARCH_INDEX_PREFIX);
    const indices = new SearchIndexer(registry, aspectStore, new OutboxStore(graph, config.SEARCH_INDEX_PREFIX), search, names, { batchSize, pollMs: 1000 }, logger);
    const offline = createOfflineWritePath(config, registry, aspectStore, logger);
    writePath = offline;
    const restore = new RestoreService(registry, new RestoreStore(graph), search, names, indices, offline.ingestion);
    console.log(`Restoring from ${addresses.neo4jUri} into ${addresses.searchEngine} ${addresses.searchUrl}${config.SEARCH_INDEX_PREFIX ? ` (index prefix ${config.SEARCH_INDEX_PREFIX})` : ''}`);
    const interactive = process.stdout.isTTY;
    const totals = await restore.restoreAll({ urn: values.urn, aspect: values.aspect, urnLike: values.urnLike, batchSize }, (counts) => {
      if (interactive) process.stdout.write(`\r${progress(counts)}   `);
      else console.log(progress(counts));
    });
    if (interactive) process.stdout.write('\n');
    console.log(`Done in ${(totals.timeTakenMs / 1000).toFixed(1)} s: ${progress(totals)}`);
    console.log(JSON.stringify(totals));
  } finally {
    await writePath?.close();
    await Promise.allSettled([graph.close(), search.close()]);
  }
}

main().catch((err) => {
  console.error(err instanceof ConfigError || err instanceof DomainError ? err.message : err instanceof Error ? err.message : err);
  process.exit(1);
});
