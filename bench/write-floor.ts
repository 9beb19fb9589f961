import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import neo4j from 'neo4j-driver';
import { Agent, request } from 'undici';
import { contentHash } from '../src/model/canonical';
import { Registry } from '../src/model/registry';
import { parseUrn } from '../src/model/urn';
import { aspectFragment, documentFromFragments, type AspectFragment } from '../src/services/indexing/document';
import { disableNagleForDriverSockets } from '../src/stores/graph/neo4j-executor';
import { entityIndexDefinition } from '../src/stores/search/mappings';

/**
 * What any Node HTTP service would reach on this machine for scenario a's traffic (one proposal per request, 16 clients):
 * node:http alone, no framework, auth, validation, versions, retention or indexing, that parses each proposal and its
 * value, computes the same hash and edges the raw reference writes, and group-commits the rows waiting at any moment with
 * the raw reference's UNWIND statement, with the default aspects of an entity's first write (defaultRows), as the
 * service stores them (at most 2 transactions in flight, as the service's WRITE_CONCURRENCY). Each
 * request is answered once its row has committed. bench/ingest.ts runs it as scenario h beside the service.
 * With an index (scenario i) it also keeps each entity's search fragments in memory, as the service's indexer does, and
 * after every commit sends the changed entities' documents (the service's own document builder and index mapping) to the
 * engine in bulk requests of up to 500, at most 2 at once, each waiting up to 200 ms to fill (OUTBOX_BATCH_SIZE,
 * OUTBOX_WORKERS, OUTBOX_LINGER_MS), and starts no group while 500 entities wait for a bulk (INDEX_BACKLOG_MAX_WRITES).
 * No outbox is claimed or acknowledged: acknowledged writes may be lost from the index.
 */

/**
 * The raw reference's statement. Per row: the entity, its latest aspect node, an edge per foreign key to a merged
 * target and an outbox entry. Each row is a new aspect, so its edges are new: CREATEd, as the service does. (A MERGE of
 * the relationship planned on the empty database scans every relationship, and with Neo4j replanning at most every
 * 5 min it stayed that way.)
 */
export const RAW_INGEST_STATEMENT = `UNWIND $rows AS row
MERGE (e:Entity {urn: row.urn}) ON CREATE SET e.type = 'dataset', e.createdAt = row.now
SET e.rev = coalesce(e.rev, 0) + 1
CREATE (e)-[:ASPECT]->(:Aspect {urn: row.urn, name: row.name, version: 0, value: row.value, hash: row.hash, createdTime: row.now, createdActor: 'urn:li:corpuser:bench', systemMetadata: row.sm})
MERGE (o:Outbox {urn: row.urn, ns: 'raw-bench'}) SET o.rev = e.rev, o.updatedAt = row.now, o.claimUntil = 0
WITH e, row
UNWIND row.edges AS edge
MERGE (t:Entity {urn: edge.target}) ON CREATE SET t.type = edge.targetType, t.placeholder = true
CREATE (e)-[:$(edge.type) {aspect: row.name}]->(t)`;

/** Removes the outbox entries the raw statement leaves (nothing indexes them). */
export const RAW_OUTBOX_CLEANUP = "MATCH (o:Outbox {ns: 'raw-bench'}) CALL (o) { DELETE o } IN TRANSACTIONS OF 5000 ROWS";

export interface RawRow {
  urn: string;
  name: string;
  value: string;
  hash: string;
  now: number;
  sm: string;
  edges: { type: string; target: string; targetType: string }[];
}

/** The edges the registry projects for the benchmark's five aspects (the raw statement writes the same ones). */
export function edgesOf(name: string, value: Record<string, unknown>): RawRow['edges'] {
  if (name === 'ownership') return (value.owners as { owner: string }[]).map((o) => ({ type: 'OwnedBy', target: o.owner, targetType: 'corpuser' }));
  if (name === 'globalTags') return (value.tags as { tag: string }[]).map((t) => ({ type: 'TaggedWith', target: t.tag, targetType: 'tag' }));
  if (name === 'upstreamLineage') return (value.upstreams as { dataset: string }[]).map((u) => ({ type: 'DownstreamOf', target: u.dataset, targetType: 'dataset' }));
  return [];
}

export function rawRow(urn: string, name: string, value: Record<string, unknown>, json = JSON.stringify(value)): RawRow {
  return { urn, name, value: json, hash: contentHash(value), now: Date.now(), sm: '{"runId":"bench"}', edges: edgesOf(name, value) };
}

const registry = Registry.load(join(__dirname, '..', 'schema'), 'li');

/**
 * The aspects stored beside an entity's first written aspect, as the service (after DataHub) stores them: its key
 * aspect and each aspect with a default value (Registry.defaultAspects: browsePaths, browsePathsV2 for a dataset). Rows
 * the service writes, so the raw reference and the floors write them too: 8 aspect nodes per dataset of the benchmark
 * for 5 written.
 */
export function defaultRows(urn: string): { name: string; value: Record<string, unknown> }[] {
  const parsed = parseUrn(urn);
  return registry.defaultAspects(parsed, registry.entity(parsed.entityType)).map((d) => ({ name: d.name, value: d.value() }));
}

export async function startWriteFloor(neo4jUri: string, index?: { searchUrl: string; name: string }): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const port = 22000 + Math.floor(Math.random() * 2000);
  const args = ['--serve', neo4jUri, String(port), ...(index ? [index.searchUrl, index.name] : [])];
  const child = fork(__filename, args, { execArgv: ['--import', 'tsx'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the write floor server exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * A server that answers the official client's ingestion at once and writes nothing (scenario j): `GET /config` with the
 * service's own answer (`config`), each proposal with its URN. What `datahub ingest` reaches when the server costs
 * nothing, so the client's own limit.
 */
export async function startInstantServer(config: string): Promise<{ url: string; proposals(): number; stop(): Promise<void> }> {
  let proposals = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = '{}';
      if (req.url?.startsWith('/config')) body = config;
      else if (req.url?.includes('action=ingestProposalBatch')) {
        const urns = (JSON.parse(Buffer.concat(chunks).toString('utf8')).proposals as { entityUrn: string }[]).map((p) => p.entityUrn);
        proposals += urns.length;
        body = JSON.stringify({ value: urns });
      } else if (req.url?.includes('action=ingestProposal')) {
        proposals++;
        body = JSON.stringify({ value: JSON.parse(Buffer.concat(chunks).toString('utf8')).proposal.entityUrn });
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, proposals: () => proposals, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}

const IN_FLIGHT = Number(process.env.FLOOR_IN_FLIGHT ?? 2);
/**
 * Entities waiting for a bulk beyond which no group starts, as the service's INDEX_BACKLOG_MAX_WRITES (default 500) holds
 * its group stage: without it a floor that indexes writes faster than the engine takes them, and owes the difference.
 */
const BACKLOG_MAX = Number(process.env.FLOOR_BACKLOG_MAX ?? 500);

interface FloorProposal {
  entityUrn: string;
  aspectName: string;
  aspect: { value: string };
}

/** Search documents of the entities the floor wrote, sent to the engine in bulk after their rows committed. */
class FloorIndexer {
  private readonly registry = registry;
  private readonly entity = registry.entity('dataset');
  private readonly fragments = new Map<string, Map<string, AspectFragment>>();
  private readonly dirty = new Set<string>();
  private readonly agent = new Agent({ connections: 4 });
  private inFlight = 0;
  private timer: NodeJS.Timeout | null = null;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly searchUrl: string,
    private readonly index: string,
  ) {}

  async createIndex(): Promise<void> {
    const res = await request(`${this.searchUrl}/${this.index}`, { method: 'PUT', body: JSON.stringify(entityIndexDefinition(this.registry, this.entity)), headers: { 'content-type': 'application/json' }, dispatcher: this.agent });
    const text = await res.body.text();
    if (res.statusCode >= 300 && !text.includes('resource_already_exists')) throw new Error(`index ${this.index}: ${text}`);
  }

  committed(rows: { urn: string; name: string; parsed: Record<string, unknown> }[]): void {
    for (const r of rows) {
      let entity = this.fragments.get(r.urn);
      if (!entity) this.fragments.set(r.urn, (entity = new Map()));
      entity.set(r.name, aspectFragment(this.registry, this.entity, r.name, r.parsed));
      this.dirty.add(r.urn);
    }
    this.pump();
  }

  get drained(): boolean {
    return this.dirty.size === 0 && this.inFlight === 0;
  }

  /** Too many entities wait for a bulk: no group should start until a bulk takes some. */
  holds(): boolean {
    return BACKLOG_MAX > 0 && this.dirty.size >= BACKLOG_MAX;
  }

  /** Resolves once holds() no longer holds. */
  released(): Promise<void> {
    if (!this.holds()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private pump(now = false): void {
    while (this.inFlight < 2 && this.dirty.size > 0) {
      if (!now && this.dirty.size < 500) {
        this.timer ??= setTimeout(() => {
          this.timer = null;
          this.pump(true);
        }, 200);
        return;
      }
      now = false;
      const urns = [...this.dirty].slice(0, 500);
      for (const urn of urns) this.dirty.delete(urn);
      if (!this.holds()) for (const go of this.waiters.splice(0)) go();
      const lines = urns.flatMap((urn) => [JSON.stringify({ index: { _index: this.index, _id: urn } }), JSON.stringify(documentFromFragments(this.registry, this.entity, urn, this.fragments.get(urn)!))]);
      this.inFlight++;
      request(`${this.searchUrl}/_bulk`, { method: 'POST', body: lines.join('\n') + '\n', headers: { 'content-type': 'application/x-ndjson' }, dispatcher: this.agent })
        .then(async (res) => {
          const answer = JSON.parse(await res.body.text()) as { errors?: boolean };
          if (res.statusCode >= 300 || answer.errors) throw new Error(`bulk: ${res.statusCode}`);
        })
        .catch((err) => {
          console.error(String(err));
          for (const urn of urns) this.dirty.add(urn);
        })
        .finally(() => {
          this.inFlight--;
          this.pump();
        });
    }
  }
}

async function serve(neo4jUri: string, port: number, searchUrl?: string, indexName?: string) {
  disableNagleForDriverSockets(); // as the service's driver has it
  const driver = neo4j.driver(neo4jUri, undefined, { disableLosslessIntegers: true });
  const indexer = searchUrl && indexName ? new FloorIndexer(searchUrl, indexName) : null;
  await indexer?.createIndex();
  const written = new Set<string>();
  let waiting: { row: RawRow; parsed: Record<string, unknown>; done(err?: unknown): void }[] = [];
  let running = 0;
  let held = false;
  const pump = () => {
    while (running < IN_FLIGHT && waiting.length > 0) {
      if (indexer?.holds()) {
        if (!held) {
          held = true;
          void indexer.released().then(() => {
            held = false;
            pump();
          });
        }
        return;
      }
      const group = waiting;
      waiting = [];
      running++;
      driver
        .executeQuery(RAW_INGEST_STATEMENT, { rows: group.map((g) => g.row) }, { database: 'neo4j' })
        .then(
          () => {
            indexer?.committed(group.map((g) => ({ urn: g.row.urn, name: g.row.name, parsed: g.parsed })));
            group.forEach((g) => g.done());
          },
          (err) => group.forEach((g) => g.done(err)),
        )
        .finally(() => {
          running--;
          pump();
        });
    }
  };
  http
    .createServer((req, res) => {
      if (req.url === '/drained') {
        res.writeHead(200).end(String(indexer?.drained ?? true));
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          // ingestProposal ({proposal}) or ingestProposalBatch ({proposals}): answered once every row has committed.
          const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { proposal?: FloorProposal; proposals?: FloorProposal[] };
          const proposals = request.proposals ?? [request.proposal!];
          let pending = 0;
          let failed: unknown = null;
          const answer = () => {
            const body = failed ? JSON.stringify({ status: 500, message: String(failed) }) : JSON.stringify({ value: request.proposals ? proposals.map((p) => p.entityUrn) : proposals[0].entityUrn });
            res.writeHead(failed ? 500 : 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
          };
          const add = (row: RawRow, parsed: Record<string, unknown>) => {
            pending++;
            waiting.push({
              row,
              parsed,
              done: (err) => {
                failed ??= err ?? null;
                if (--pending === 0) answer();
              },
            });
          };
          for (const proposal of proposals) {
            // An entity's first write also stores its defaults (the floor is the only writer of its urns).
            if (!written.has(proposal.entityUrn)) {
              written.add(proposal.entityUrn);
              for (const d of defaultRows(proposal.entityUrn)) add(rawRow(proposal.entityUrn, d.name, d.value), d.value);
            }
            const parsed = JSON.parse(proposal.aspect.value) as Record<string, unknown>;
            add(rawRow(proposal.entityUrn, proposal.aspectName, parsed, proposal.aspect.value), parsed);
          }
          pump();
        } catch (err) {
          res.writeHead(400).end(String(err));
        }
      });
    })
    .listen(port, '127.0.0.1', () => process.send?.('up'));
}

if (process.argv[2] === '--serve') {
  serve(process.argv[3], Number(process.argv[4]), process.argv[5], process.argv[6]).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
