import { execFileSync } from 'node:child_process';
import type Koa from 'koa';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { authRequirement } from './auth/exposure';
import { resolveTokenSecret } from './auth/secret';
import { SharedRevocationChecks } from './auth/shared-revocation-checks';
import { TokenAuthenticator } from './auth/token-authenticator';
import { TokenSigner } from './auth/tokens';
import type { Config } from './config';
import { createHttpApp } from './http/app';
import { answerUnparsableRequests } from './http/errors';
import { graphqlMiddleware } from './http/graphql';
import { createLogger } from './logger';
import { Registry } from './model/registry';
import { browsePathsV2 } from './model/aspects';
import { lineageRoutes } from './http/routes/lineage';
import { metadataRoutes } from './http/routes/metadata';
import { searchRoutes } from './http/routes/search';
import { searchAcrossRoutes } from './http/routes/search-across';
import { openApiV2Routes } from './http/routes/openapi-v2';
import { openApiV3Routes } from './http/routes/openapi-v3';
import { openApiV3GenericRoutes, openApiV3WriteRoutes } from './http/routes/openapi-v3-writes';
import { OpenApiEntities } from './services/openapi-entities';
import { OwnersAndLinks } from './services/owners-and-links';
import { Hierarchy } from './services/hierarchy';
import { Glossary } from './services/glossary';
import { DataProducts } from './services/data-products';
import { Groups } from './services/groups';
import { HierarchyStore } from './stores/graph/hierarchy-store';
import { AcrossEntitiesSearch } from './services/search/across-entities';
import { Descriptions } from './services/descriptions';
import { DomainAssignments } from './services/domain-assignments';
import { EntityReads } from './services/entity-reads';
import { EdgeScrollStore } from './stores/graph/edge-scroll-store';
import { testRoutes } from './http/routes/tests';
import { operationsRoutes } from './http/routes/operations';
import { timeseriesRoutes } from './http/routes/timeseries';
import { runRoutes } from './http/routes/runs';
import { referencesRoutes } from './http/routes/references';
import { ReferencesService } from './services/references';
import { ReferenceStore } from './stores/graph/reference-store';
import { catalogRoutes } from './http/routes/catalog';
import { CatalogService } from './services/catalog';
import { ListingStore } from './stores/graph/listing-store';
import { usageRoutes } from './http/routes/usage';
import { UsageService } from './services/usage';
import { timelineRoutes } from './http/routes/timeline';
import { HistoryStore } from './stores/graph/history-store';
import { TimelineService } from './services/history/timeline-service';
import { AsOfLineage, LineageBackfill } from './services/history/lineage-as-of';
import { OperationsService } from './services/operations';
import { RestoreService } from './services/restore';
import { RetentionPolicies } from './services/retention-policies';
import { RetentionApplication } from './services/retention-apply';
import { RetentionStore } from './stores/graph/retention-store';
import { retentionRoutes } from './http/routes/retention';
import { Views } from './services/views';
import { DEFINITION_ASPECT, StructuredPropertyChecks } from './services/structured-property-checks';
import { TimeseriesService } from './services/timeseries';
import { RestoreStore } from './stores/graph/restore-store';
import { RunStore } from './stores/graph/run-store';
import { TestService } from './services/metadata-tests/test-service';
import { TestStore } from './stores/graph/test-store';
import { SearchService } from './services/search/search-service';
import { DeletedHitGuard } from './services/search/deleted-hit-guard';
import { DeletedHitsStore } from './stores/graph/deleted-hits-store';
import { PendingDeleteMarkers } from './stores/search/pending-deletes';
import { FragmentCache } from './services/indexing/fragment-cache';
import { ProcessLease, processLeaseOptions } from './stores/graph/process-lease';
import { PeerInvalidation } from './stores/peers/peer-invalidation';
import { LeasedReadCoherence } from './stores/graph/read-coherence';
import { HealthService } from './services/health';
import { IngestionService } from './services/ingestion';
import { rehearseWrites, writePipeline } from './services/write-path/pipeline';
import { Publisher } from './services/write-path/publish';
import { AccessTokens } from './services/access-tokens';
import { DeprecationService } from './services/deprecation';
import { Assertions } from './services/assertions';
import { DatasetOperations } from './services/dataset-operations';
import { IngestionSources } from './services/ingestion-sources';
import { JobRuns } from './services/job-runs';
import { TagLabels } from './services/tag-labels';
import { FormAssignmentService } from './services/form-assignment';
import { TokenStore } from './stores/graph/token-store';
import { RetrievalService } from './services/retrieval';
import { RunService } from './services/runs';
import { LineageService } from './services/lineage/lineage-service';
import { LineageStore } from './stores/graph/lineage-store';
import { AspectStore } from './stores/graph/aspect-store';
import { OutboxStore } from './stores/graph/outbox-store';
import { IndexNames } from './stores/search/mappings';
import { SearchIndexer } from './services/indexing/indexer';
import { SearchSync } from './services/indexing/search-sync';
import { createDataPlatforms } from './services/bootstrap/data-platforms';
import { createDefaultRetentionPolicies } from './services/bootstrap/retention-policies';
import { createRootUser } from './services/bootstrap/root-user';
import { EntityIndexMigrations } from './services/indexing/index-migrations';
import { completeDefaultBrowsePaths } from './services/default-browse-paths';
import type { BrowsePathEntry } from './model/browse-paths';
import { Neo4jExecutor } from './stores/graph/neo4j-executor';
import { createSearchEngine } from './stores/search/adapters';
import type { EngineName, SearchEngine } from './stores/search/engine';

export const ROOT_DIR = join(__dirname, '..');
const VERSION: string = require('../package.json').version;

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT_DIR, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return 'unknown';
  }
}

export interface BackendAddresses {
  neo4jUri: string;
  searchUrl: string;
  searchEngine: EngineName;
}

export interface RunningService {
  url: string;
  server: Server;
  /** The koa app (tests read its mounted routers, e.g. the OpenAPI drift check). */
  app: Koa;
  graph: Neo4jExecutor;
  search: SearchEngine;
  indexer: SearchIndexer;
  ingestion: IngestionService;
  indexNames: IndexNames;
  registry: Registry;
  logger: Logger;
  /** This process's registration among the processes sharing the database. */
  lease: ProcessLease;
  close(): Promise<void>;
}

/** The registry and the two backend clients, configured from the environment (shared by the service and admin CLIs). */
export function createBackendClients(config: Config, backends: BackendAddresses, logger: Logger, searchTimeoutMs = config.BACKEND_TIMEOUT_MS) {
  const registry = Registry.load(join(ROOT_DIR, 'schema'), config.URN_NAMESPACE);
  const graph = new Neo4jExecutor(
    {
      uri: backends.neo4jUri,
      user: config.NEO4J_USER,
      password: config.NEO4J_PASSWORD,
      database: config.NEO4J_DATABASE,
      timeoutMs: config.BACKEND_TIMEOUT_MS,
      cypherDir: join(ROOT_DIR, 'cypher'),
    },
    logger,
  );
  const search = createSearchEngine({
    engine: backends.searchEngine,
    url: backends.searchUrl,
    username: config.SEARCH_USERNAME,
    password: config.SEARCH_PASSWORD,
    timeoutMs: searchTimeoutMs,
  });
  return { registry, graph, search };
}

function groupWriterOptions(config: Config) {
  return {
    windowMs: config.WRITE_GROUP_WINDOW_MS,
    maxGroupWrites: config.WRITE_GROUP_MAX_WRITES,
    concurrency: config.WRITE_CONCURRENCY,
    overlapMinWrites: config.WRITE_OVERLAP_MIN_WRITES,
    overlapWindowMs: config.WRITE_OVERLAP_WINDOW_MS,
    maxQueuedWrites: config.WRITE_QUEUE_MAX_WRITES,
    knownStatesBytes: config.WRITE_CACHE_SIZE,
    timeoutMs: config.BACKEND_TIMEOUT_MS,
  };
}

/**
 * The write path without the HTTP app, for admin CLIs and benchmarks (restore): a group writer over the aspect store.
 * Their writes leave outbox entries for a running service's indexer; time-series aspects are not written.
 */
export function createOfflineWritePath(config: Config, registry: Registry, aspectStore: AspectStore, logger: Logger) {
  const writer = writePipeline(aspectStore, new Publisher({}, logger), groupWriterOptions(config), logger);
  const ingestion = new IngestionService(registry, writer, null, { retention: config.RETENTION_MAX_VERSIONS, retentionMaxAgeMs: config.RETENTION_MAX_AGE });
  return { ingestion, close: () => writer.close() };
}

/** The composition root: stores, services and the HTTP app, wired once. */
export async function startService(config: Config, backends: BackendAddresses, logger = createLogger(config.LOG_LEVEL)): Promise<RunningService> {
  const { registry, graph, search } = createBackendClients(config, backends, logger);
  await graph.ensureSchema();

  // Every process registers; one with a cache also listens for others' writes, and may then read it unchecked.
  const lease = new ProcessLease(graph, processLeaseOptions(config.BACKEND_TIMEOUT_MS), logger);
  const peers = new PeerInvalidation(lease, { host: config.HOST, port: config.CACHE_PEER_PORT, advertisedHost: config.CACHE_PEER_HOST, timeoutMs: config.CACHE_PEER_TIMEOUT_MS }, logger);
  const readCoherence = await LeasedReadCoherence.open({ cacheBytes: config.READ_CACHE_SIZE, unchecked: config.READ_CACHE_UNCHECKED }, lease, peers);
  const aspectStore = new AspectStore(graph, config.SEARCH_INDEX_PREFIX, readCoherence);
  await rehearseWrites(aspectStore, registry.urnNamespace);
  await lease.start();
  const indexNames = new IndexNames(config.SEARCH_INDEX_PREFIX);
  const pendingDeletes = new PendingDeleteMarkers(search, indexNames);
  // In the background: the service starts while the engine is down, and the first delete creates the index anyway.
  pendingDeletes.ensureIndex().catch(() => undefined);
  const indexer = new SearchIndexer(
    registry,
    aspectStore,
    new OutboxStore(graph, config.SEARCH_INDEX_PREFIX),
    search,
    indexNames,
    { batchSize: config.OUTBOX_BATCH_SIZE, pollMs: config.OUTBOX_POLL_MS, idlePollMs: config.OUTBOX_IDLE_POLL_MS, lingerMs: config.OUTBOX_LINGER_MS, workers: config.OUTBOX_WORKERS, maxBacklog: config.INDEX_BACKLOG_MAX_WRITES, maxBackoffMs: config.HEALTH_CHECK_INTERVAL_MS * 2 },
    logger,
    pendingDeletes,
    config.INDEX_CACHE_SIZE > 0 ? new FragmentCache(config.INDEX_CACHE_SIZE) : undefined,
    new EntityIndexMigrations(registry, search, indexNames, new RestoreStore(graph), logger, { batchSize: config.OUTBOX_BATCH_SIZE }),
  );
  const timeseries = new TimeseriesService(registry, search, indexNames, logger);
  const listing = new ListingStore(graph);
  const retentionPolicies = new RetentionPolicies(
    registry,
    { versions: config.RETENTION_MAX_VERSIONS, maxAgeMs: config.RETENTION_MAX_AGE ?? null },
    (entityType, aspect) => listing.latestOfType(entityType, aspect),
    config.RETENTION_POLICY_REFRESH_MS,
    logger,
  );
  await retentionPolicies.start();
  const writer = writePipeline(aspectStore, new Publisher({ indexer, coherence: readCoherence, followers: [retentionPolicies] }, logger), groupWriterOptions(config), logger);
  const propertyChecks = new StructuredPropertyChecks(async (urns) => {
    const latest = await aspectStore.latestMany(urns, [DEFINITION_ASPECT]);
    const found = new Map<string, Record<string, unknown>>();
    for (const urn of urns) {
      const definition = latest.get(urn)?.aspects.get(DEFINITION_ASPECT);
      if (definition) found.set(urn, definition as Record<string, unknown>);
    }
    return found;
  }, registry.urnNamespace);
  const ingestion: IngestionService = new IngestionService(registry, writer, timeseries, {
    retention: config.RETENTION_MAX_VERSIONS,
    retentionMaxAgeMs: config.RETENTION_MAX_AGE,
    retentionPolicies,
    pendingDeletes,
    searchSync: new SearchSync(indexer, search, indexNames, config.SYNC_INDEX_TIMEOUT_MS),
    checkWrites: (items) => propertyChecks.check(items),
    completeDefaults: (items): Promise<void> =>
      completeDefaultBrowsePaths(
        items,
        async (urns) => {
          const latest = await aspectStore.latestMany(urns, [browsePathsV2.name]);
          return new Map(urns.map((u) => [u, (latest.get(u)?.aspects.get(browsePathsV2.name)?.path as BrowsePathEntry[] | undefined) ?? null]));
        },
        (name, value) => ingestion.projectStored(name, value),
      ),
  });
  const history = new HistoryStore(graph);
  const lineageBackfill = new LineageBackfill(registry, history, logger);
  // In the background: as-of lineage waits for it; a database that had it answers at once.
  lineageBackfill.start().catch((err) => logger.warn({ err: (err as Error).message }, 'could not build the lineage history index; as-of lineage tries again'));
  const retrieval = new RetrievalService(registry, aspectStore, history);
  const runs = new RunService(registry, new RunStore(graph), ingestion, timeseries, logger);
  if (config.BOOTSTRAP_DATA_PLATFORMS) {
    createDataPlatforms(ingestion, registry).catch((err) => logger.warn({ err: (err as Error).message }, 'could not create the well-known data platforms; the next start tries again'));
  }
  if (config.BOOTSTRAP_ROOT_USER) {
    createRootUser(ingestion, registry).catch((err) => logger.warn({ err: (err as Error).message }, "could not create DataHub's root user; the next start tries again"));
  }
  if (config.BOOTSTRAP_RETENTION_POLICIES) {
    createDefaultRetentionPolicies(ingestion, registry).catch((err) => logger.warn({ err: (err as Error).message }, "could not create DataHub's default retention policies; the next start tries again"));
  }
  runs.indexEarlierWrites().catch((err) => logger.warn({ err: (err as Error).message }, 'could not index the runs of earlier writes; the next start tries again'));
  const deletedHitGuard = new DeletedHitGuard(search, pendingDeletes, new DeletedHitsStore(graph, config.BACKEND_TIMEOUT_MS));
  const searchService = new SearchService(registry, search, indexNames, deletedHitGuard);
  const searchAcross = new AcrossEntitiesSearch(registry, indexNames, deletedHitGuard);
  const reads = new EntityReads(registry, aspectStore, retrieval, new EdgeScrollStore(graph), searchAcross);
  const restore = new RestoreService(registry, new RestoreStore(graph), search, indexNames, indexer, ingestion);
  const operations = new OperationsService(search, timeseries, restore, logger);
  const tests = new TestService(registry, aspectStore, new TestStore(graph), ingestion);
  const references = new ReferencesService(registry, new ReferenceStore(graph), ingestion);
  const catalog = new CatalogService(registry, listing);
  const usage = new UsageService(registry, ingestion, timeseries);

  const deprecation = new DeprecationService(registry, aspectStore, ingestion);
  const forms = new FormAssignmentService(registry, aspectStore, ingestion);
  const tags = new TagLabels(registry, aspectStore, ingestion);
  const lineageStore = new LineageStore(graph, registry.lineageRelationships(), registry.urnNamespace, readCoherence);
  await lineageStore.prepare();
  lineageStore
    .flagEarlierSoftDeletes()
    .then((marked) => marked > 0 && logger.info({ entities: marked }, 'flagged the soft-deleted entities written before the flag was kept'))
    .catch((err) => logger.warn({ err: (err as Error).message }, 'could not flag earlier soft-deleted entities; lineage reads their status until the next start'));
  const lineage = new LineageService(registry, lineageStore, {
    maxHops: config.LINEAGE_MAX_HOPS,
    fanOut: config.LINEAGE_FAN_OUT,
    resultCap: config.LINEAGE_RESULT_CAP,
    maxCount: Math.min(10000, config.LINEAGE_RESULT_CAP),
    deadlineMs: config.LINEAGE_DEADLINE_MS,
  }, new AsOfLineage(registry, history, lineageBackfill));
  const tokenSecret = resolveTokenSecret(config, ROOT_DIR);
  if (!config.TOKEN_SECRET && config.NEO4J_URI) logger.warn({ file: tokenSecret.source }, 'TOKEN_SECRET is not set; tokens are signed with the secret kept in this file');
  const requirement = authRequirement(config);
  if (requirement.reason === 'opted-out') {
    logger.warn(
      { HOST: config.HOST, AUTH_REQUIRED_EVERYWHERE: false },
      `AUTH_REQUIRED_EVERYWHERE=false while listening on ${config.HOST}, not a loopback address: anyone who can reach the port can ingest, soft-delete and hard-delete any entity and read the whole catalog without a token`,
    );
  } else if (requirement.reason === 'exposed') {
    logger.info({ HOST: config.HOST }, `Listening on ${config.HOST}, not a loopback address: every endpoint but /health, /config and the API documentation needs a token (AUTH_REQUIRED_EVERYWHERE=false opts out)`);
  }
  const tokens = new TokenStore(graph);
  const revocations = new SharedRevocationChecks((jtis) => tokens.revokedAmong(jtis));
  const signer = new TokenSigner(tokenSecret.secret);
  const auth = new TokenAuthenticator(signer, revocations, { requiredEverywhere: requirement.requiredEverywhere, urnNamespace: config.URN_NAMESPACE });
  const accessTokens = new AccessTokens(registry, searchAcross, reads, tokens, ingestion, signer);
  const jobRuns = new JobRuns(registry, searchAcross);
  const ingestionSources = new IngestionSources(registry, searchAcross, reads, ingestion);
  const datasetOperations = new DatasetOperations(registry, reads, ingestion, timeseries);
  const assertions = new Assertions(registry, reads, retrieval, ingestion, timeseries);
  const hierarchy = new Hierarchy(new HierarchyStore(graph));
  const domainAssignments = new DomainAssignments(registry, reads, searchAcross, ingestion, hierarchy, references);
  const glossary = new Glossary(registry, reads, ingestion, hierarchy);
  const dataProducts = new DataProducts(registry, reads, retrieval, ingestion, references);
  const retentionApplication = new RetentionApplication(registry, retentionPolicies, new RetentionStore(graph));
  const views = new Views(registry, reads, ingestion, (entityType, aspect) => listing.latestOfType(entityType, aspect), (name) => searchAcross.names.model(name) ?? null);
  const groups = new Groups(registry, reads, searchAcross, ingestion, references);
  const descriptions = new Descriptions(registry, reads, ingestion);
  const openApiEntities = new OpenApiEntities(registry, ingestion, reads, timeseries);
  const owners = new OwnersAndLinks(registry, reads, ingestion);
  const timeline = new TimelineService(registry, history);

  const commit = gitCommit();
  const health = new HealthService(graph, search, VERSION, Math.min(config.BACKEND_TIMEOUT_MS, 2000));
  const app = createHttpApp({
    logger,
    bodyLimitBytes: config.BODY_LIMIT,
    health,
    auth,
    beforeBodyParser: [graphqlMiddleware({ deprecation, forms, tags, lineage, jobRuns, accessTokens, ingestionSources, datasetOperations, assertions, domains: domainAssignments, glossary, descriptions, owners, hierarchy, retrieval, timeline, dataProducts, groups, views, search: searchAcross, browsing: searchService, reads, registry, version: VERSION, auth, bodyLimitBytes: config.BODY_LIMIT, logger, lineageAnswerCacheBytes: config.LINEAGE_ANSWER_CACHE_SIZE })],
    routes: [
      ...metadataRoutes({ ingestion, retrieval }),
      ...lineageRoutes(lineage),
      ...searchRoutes(searchService),
      ...searchAcrossRoutes(searchAcross, reads),
      ...openApiV3GenericRoutes(openApiEntities, reads),
      ...openApiV3Routes(reads),
      ...openApiV3WriteRoutes(openApiEntities),
      ...openApiV2Routes(openApiEntities, reads),
      ...testRoutes(tests),
      ...timeseriesRoutes(timeseries),
      ...operationsRoutes(operations),
      ...runRoutes(runs),
      ...referencesRoutes(references),
      ...catalogRoutes(catalog),
      ...usageRoutes(usage),
      ...timelineRoutes(timeline),
      ...retentionRoutes(retentionApplication),
    ],
    serverConfig: () => ({
      noCode: 'true',
      versions: { 'graph-metadata-service': { version: VERSION, commit } },
      datasetUrnNameCasing: false,
      statefulIngestionCapable: true,
      retention: 'true',
      timeZone: 'GMT',
    }),
  });

  indexer.start();
  timeseries.start();
  const server = await new Promise<Server>((resolve, reject) => {
    // Node's own Host check answers with a bare 400; the app refuses a missing Host with the JSON error body instead.
    const s = createServer({ requireHostHeader: false }, app.callback());
    answerUnparsableRequests(s);
    s.listen(config.PORT, config.HOST, () => resolve(s));
    s.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  const address = server.address() as AddressInfo;
  const url = `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;

  return {
    url,
    server,
    app,
    graph,
    search,
    indexer,
    ingestion,
    indexNames,
    registry,
    logger,
    lease,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await writer.close();
      // Deregistered before the endpoint closes: a writer that still finds it then needs no wait.
      retentionPolicies.stop();
      await Promise.all([indexer.stop(), timeseries.stop(), lease.stop()]);
      await peers.close();
      await Promise.allSettled([graph.close(), search.close()]);
    },
  };
}
