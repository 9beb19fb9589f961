import { TokenSigner } from '../src/auth/tokens';
import { backends, cpuSnapshot, flag, http, report, startServiceProcess } from './lib';

/**
 * What a token costs an ingestion client: single proposals (a new dataset's datasetProperties each) from --clients
 * concurrent clients for --seconds, through a service that requires tokens everywhere (as one listening beyond
 * loopback does) with every request carrying the client's one write token, beside the same service with tokens not
 * required and none sent (the reference: the same work without authentication). Alternating, --rounds times, each on a
 * freshly started service warmed for --warmup seconds. Reports requests/s and service and Neo4j CPU per request.
 *   npx tsx bench/auth-ingest.ts [--clients 16] [--seconds 12] [--warmup 5] [--rounds 2]
 * With BENCH_NEO4J_URI and BENCH_SEARCH_URL, name the servers' processes for their CPU: BENCH_PIDS=neo4j:<pid>,opensearch:<pid>.
 */
const clients = flag('clients', 16);
const seconds = flag('seconds', 12);
const warmup = flag('warmup', 5);
const rounds = flag('rounds', 2);
const TOKEN_SECRET = 'bench-secret-0123456789abcdef0123456789abcdef';

async function main() {
  const b = await backends(['neo4j', 'opensearch']);
  const { token } = await new TokenSigner(TOKEN_SECRET).issue({ actor: 'urn:li:corpuser:bench', scopes: ['write'], ttlSeconds: 3600 });
  const rows: Record<string, Record<string, unknown>> = {};
  const run = `a${Date.now().toString(36)}`;
  let seq = 0;
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const withToken of round % 2 ? [true, false] : [false, true]) {
        const service = await startServiceProcess(b, { TOKEN_SECRET, AUTH_REQUIRED_EVERYWHERE: withToken ? 'true' : 'false' });
        const headers: Record<string, string> = withToken ? { Authorization: `Bearer ${token}` } : {};
        const propose = () => {
          const i = seq++;
          const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,${run}.t${i},PROD)`;
          const aspect = { value: JSON.stringify({ description: `table ${i}` }), contentType: 'application/json' };
          return http(`${service.url}/aspects?action=ingestProposal`, { json: { proposal: { entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName: 'datasetProperties', aspect } }, headers });
        };
        const load = async (ms: number) => {
          const until = Date.now() + ms;
          let done = 0;
          let errors = 0;
          await Promise.all(
            Array.from({ length: clients }, async () => {
              while (Date.now() < until) {
                if (!(await propose()).ok) errors++;
                done++;
              }
            }),
          );
          return { done, errors };
        };
        try {
          await load(warmup * 1000);
          const pids = { service: service.child.pid!, ...b.pids };
          const before = cpuSnapshot(pids);
          const started = performance.now();
          const { done, errors } = await load(seconds * 1000);
          const elapsed = (performance.now() - started) / 1000;
          const after = cpuSnapshot(pids);
          const perOp = (name: string) => Math.round(((after.processes[name] - before.processes[name]) * 1000) / done);
          rows[`${withToken ? 'token on every request' : 'no token (reference)'}, round ${round}`] = {
            requestsPerSecond: Math.round(done / elapsed),
            errors,
            'cpu µs/op service': perOp('service'),
            ...(b.pids.neo4j ? { 'cpu µs/op neo4j': perOp('neo4j') } : {}),
            ...(b.pids.opensearch ? { 'cpu µs/op opensearch': perOp('opensearch') } : {}),
          };
          console.error(rows);
        } finally {
          await service.stop();
        }
      }
    }
  } finally {
    await b.stop();
  }
  report('auth-ingest', rows, { clients, seconds, warmup, rounds });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
