import type { Neo4jExecutor } from '../stores/graph/neo4j-executor';
import type { SearchEngine } from '../stores/search/engine';

export interface BackendHealth {
  status: 'UP' | 'DOWN';
  latencyMs: number;
  error?: string;
}

export interface HealthReport {
  status: 'UP' | 'DOWN';
  service: { status: 'UP'; version: string };
  neo4j: BackendHealth;
  search: BackendHealth & { engine: string };
}

async function probe(check: () => Promise<void>): Promise<BackendHealth> {
  const started = performance.now();
  try {
    await check();
    return { status: 'UP', latencyMs: Math.round(performance.now() - started) };
  } catch (err) {
    return { status: 'DOWN', latencyMs: Math.round(performance.now() - started), error: (err as Error).message };
  }
}

/** Live checks of each backend, bounded by a timeout so /health itself never hangs. */
export class HealthService {
  constructor(
    private readonly graph: Neo4jExecutor,
    private readonly search: SearchEngine,
    private readonly version: string,
    private readonly timeoutMs: number,
  ) {}

  async check(): Promise<HealthReport> {
    const [neo4j, search] = await Promise.all([probe(() => this.graph.ping(this.timeoutMs)), probe(() => this.search.ping(this.timeoutMs))]);
    return {
      status: neo4j.status === 'UP' && search.status === 'UP' ? 'UP' : 'DOWN',
      service: { status: 'UP', version: this.version },
      neo4j,
      search: { ...search, engine: this.search.engine },
    };
  }
}
