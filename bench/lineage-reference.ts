import { fork } from 'node:child_process';
import http from 'node:http';
import neo4j, { type Driver } from 'neo4j-driver';
import { disableNagleForDriverSockets } from '../src/stores/graph/neo4j-executor';
import type { LineageDirection } from '../src/stores/graph/lineage-store';

/** What the reference walk reached: each node's degree and the node it was first reached from (BFS order). */
export interface ReferenceWalk {
  /** Nodes reached (one past the cap when cut). */
  reached: number;
  /** How many of them are soft-deleted (read only with `status`). */
  removed: number;
  parents: Map<string, { degree: number; parent: string | null; removed: boolean }>;
}

/**
 * The reference walk of bench/lineage.ts: the best hop-by-hop Cypher for its graph, one statement per hop, with no
 * exchange besides them (one hop auto-commit, more in a read transaction that waits for neither BEGIN's nor COMMIT's
 * answer) (DownstreamOf only, directed; the first frontier sought by urn, later ones by the element ids the hop
 * before returned, unless `byId` is false), each reached node with one parent and its onward degree (the fan-out
 * rule), the visited set kept here, the same fan-out and visit cap. `status` also reads each node's soft-delete flag.
 */
export async function hopByHop(driver: Driver, start: string, direction: LineageDirection, hops: number, fanOut: number, visitCap: number, status: boolean, byId = true): Promise<ReferenceWalk> {
  const step = direction === 'DOWNSTREAM' ? '<-[:DownstreamOf]-' : '-[:DownstreamOf]->';
  // In rows of 48 neighbours: the driver decodes those fastest (cypher/lineage.cypher hop says why). The last hop
  // returns no element ids: no hop seeks its nodes (1,489 of them from a hub took the hop 14.5 ms instead of 10.5).
  const found = (last: boolean) => `WITH m, min(i) AS parent WITH collect([m.urn, parent, COUNT { (m)${step}() }, ${status ? 'coalesce(m.removed, false)' : 'false'}, ${last ? 'null' : 'elementId(m)'}]) AS found
     UNWIND range(0, CASE WHEN size(found) = 0 THEN 0 ELSE size(found) - 1 END, 48) AS k RETURN found[k..k + 48] AS found`;
  const byUrn = (last: boolean) => `UNWIND range(0, size($frontier) - 1) AS i MATCH (:Entity {urn: $frontier[i]})${step}(m:Entity) ${found(last)}`;
  // After the first hop, the frontier by the element ids the hop before returned (no urn index descent per node).
  const byElementId = (last: boolean) => `UNWIND range(0, size($nodes) - 1) AS i MATCH (a) WHERE elementId(a) = $nodes[i] MATCH (a)${step}(m:Entity) ${found(last)}`;
  // The fewest exchanges with the server: one hop is one auto-commit statement; more hops share a read transaction
  // (element ids hold within one) whose BEGIN goes out with the first statement and whose COMMIT is not waited for.
  const session = driver.session({ database: 'neo4j', defaultAccessMode: neo4j.session.READ });
  const tx = hops > 1 ? session.beginTransaction() : null;
  const run = (text: string, params: Record<string, unknown>) => (tx ? tx.run(text, params) : session.run(text, params));
  let walk: ReferenceWalk;
  try {
    walk = await walkHops(run);
  } catch (err) {
    await tx?.rollback().catch(() => undefined);
    await session.close();
    throw err;
  }
  if (tx) void tx.commit().catch(() => undefined).finally(() => session.close());
  else await session.close();
  return walk;

  async function walkHops(run: (text: string, params: Record<string, unknown>) => Promise<{ records: { get(key: string): unknown }[] }>): Promise<ReferenceWalk> {
    const parents: ReferenceWalk['parents'] = new Map([[start, { degree: 0, parent: null, removed: false }]]);
    let removed = 0;
    let frontier = [start];
    let nodes: string[] = [];
    for (let degree = 1; degree <= hops && frontier.length > 0; degree++) {
      const next: string[] = [];
      const nextNodes: string[] = [];
      const text = (degree > 1 && byId ? byElementId : byUrn)(degree === hops);
      const rows = (await run(text, { frontier, nodes })).records.flatMap((r) => r.get('found') as [string, number, number, boolean, string][]);
      for (const [urn, parent, onward, gone, node] of rows) {
        if (parents.has(urn)) continue;
        parents.set(urn, { degree, parent: frontier[parent], removed: gone });
        if (gone) removed++;
        if (parents.size > visitCap + 1) return { reached: visitCap + 1, removed, parents };
        if (onward <= fanOut) {
          next.push(urn);
          nextNodes.push(node);
        }
      }
      frontier = next;
      nodes = nextNodes;
    }
    return { reached: parents.size - 1, removed, parents };
  }
}

/**
 * The lineage floor: what a bare Node HTTP server in front of Neo4j adds to a walk on this machine. node:http alone (no
 * framework, auth, validation, filters or sort) answers POST {urn, direction, maxHops, count} with the reference walk
 * (soft-delete flags read, as the service must) and the first `count` nodes it reached that are not soft-deleted, each
 * with its degree and path, JSON.stringify'd. bench/lineage.ts measures it beside the service and the reference.
 */
export async function startLineageFloor(neo4jUri: string, limits: { fanOut: number; visitCap: number }): Promise<{ url: string; stop(): void }> {
  const port = 22000 + Math.floor(Math.random() * 2000);
  const child = fork(__filename, ['--serve', neo4jUri, String(port), String(limits.fanOut), String(limits.visitCap)], { execArgv: ['--import', 'tsx'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the lineage floor server exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

function serve(neo4jUri: string, port: number, fanOut: number, visitCap: number) {
  // The same TCP_NODELAY the service's driver has.
  disableNagleForDriverSockets();
  const driver = neo4j.driver(neo4jUri, undefined, { disableLosslessIntegers: true });
  http
    .createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        try {
          const { urn, direction, maxHops, count } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { urn: string; direction: LineageDirection; maxHops: number; count: number };
          const walk = await hopByHop(driver, urn, direction, maxHops, fanOut, visitCap, true);
          const entities: { entity: string; degree: number; paths: { path: string[] }[] }[] = [];
          let total = 0;
          for (const [node, { degree, removed }] of walk.parents) {
            if (degree === 0 || removed) continue;
            total++;
            if (entities.length >= count) continue;
            const path = [node];
            for (let at = walk.parents.get(node)!.parent; at !== null; at = walk.parents.get(at)!.parent) path.unshift(at);
            entities.push({ entity: node, degree, paths: [{ path }] });
          }
          const body = JSON.stringify({ value: { from: 0, pageSize: entities.length, numEntities: total, entities } });
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
          res.end(body);
        } catch (err) {
          res.writeHead(500).end(String(err));
        }
      });
    })
    .listen(port, '127.0.0.1', () => process.send?.('up'));
}

if (process.argv[2] === '--serve') serve(process.argv[3], Number(process.argv[4]), Number(process.argv[5]), Number(process.argv[6]));
