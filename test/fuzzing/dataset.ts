import { createHash } from 'node:crypto';
import type { Driver } from 'neo4j-driver';
import stringify from 'safe-stable-stringify';
import type { SampleUrns } from './generate';

/**
 * The data side of the fuzzer: a fixed sample dataset seeded before the run and compared byte for byte afterwards,
 * fingerprints of every other entity, and the removal of what the run created. Reads go straight to Neo4j.
 */

export function sampleUrns(keyMarker: string): SampleUrns {
  return {
    dataset: `urn:li:dataset:(urn:li:dataPlatform:hive,${keyMarker}orders,PROD)`,
    upstream: `urn:li:dataset:(urn:li:dataPlatform:hive,${keyMarker}raw_orders,PROD)`,
    tag: `urn:li:tag:${keyMarker}pii`,
    user: `urn:li:corpuser:${keyMarker}owner`,
    term: `urn:li:glossaryTerm:${keyMarker}Sensitive`,
    chart: `urn:li:chart:(looker,${keyMarker}sales)`,
  };
}

type Post = (path: string, body: unknown) => Promise<{ status: number; text: string }>;

/** Several entities, aspects with history versions, and edges of several types; through the service, as a client would. */
export async function seedSample(post: Post, s: SampleUrns): Promise<void> {
  const stamp = { time: 1581407189000, actor: s.user };
  const writes: [string, string, unknown][] = [
    [s.upstream, 'datasetProperties', { name: 'raw_orders', description: 'Raw orders feed' }],
    [s.tag, 'tagProperties', { name: 'pii', description: 'Personal data' }],
    [s.user, 'corpUserInfo', { active: true, displayName: 'Owner', email: 'owner@example.com' }],
    [s.term, 'glossaryTermInfo', { definition: 'Sensitive data', termSource: 'INTERNAL' }],
    [s.dataset, 'datasetProperties', { name: 'orders', description: 'Orders, first version' }],
    [s.dataset, 'datasetProperties', { name: 'orders', description: 'Orders, second version', customProperties: { team: 'sales' } }],
    [s.dataset, 'datasetProperties', { name: 'orders', description: "Orders 'kept' for \"ever\" \\ ünïcödé", customProperties: { team: 'sales', tier: 'gold' } }],
    [s.dataset, 'ownership', { owners: [{ owner: s.user, type: 'DATAOWNER' }], lastModified: stamp }],
    [s.dataset, 'globalTags', { tags: [{ tag: s.tag }] }],
    [s.dataset, 'glossaryTerms', { terms: [{ urn: s.term }], auditStamp: stamp }],
    [s.dataset, 'upstreamLineage', { upstreams: [{ dataset: s.upstream, type: 'TRANSFORMED', auditStamp: stamp }] }],
    [s.dataset, 'status', { removed: false }],
    [s.dataset, 'status', { removed: true }],
    [s.dataset, 'status', { removed: false }],
    [s.dataset, 'deprecation', { deprecated: false, note: '', actor: s.user, decommissionTime: null }],
    [
      s.dataset,
      'schemaMetadata',
      {
        schemaName: 'orders',
        platform: 'urn:li:dataPlatform:hive',
        version: 0,
        created: stamp,
        lastModified: stamp,
        hash: '',
        platformSchema: { 'com.linkedin.schema.MySqlDDL': { tableSchema: 'create table orders (id int)' } },
        fields: [{ fieldPath: 'id', nativeDataType: 'int', type: { type: { 'com.linkedin.schema.NumberType': {} } }, nullable: false, recursive: false }],
      },
    ],
    [s.dataset, 'datasetProfile', { timestampMillis: 1672531200000, rowCount: 42, columnCount: 1 }],
    [s.chart, 'chartInfo', { title: 'Sales', description: 'Sales chart', inputs: [{ string: s.dataset }], lastModified: { created: stamp, lastModified: stamp } }],
    [s.chart, 'ownership', { owners: [{ owner: s.user, type: 'TECHNICAL_OWNER' }] }],
  ];
  for (const [urn, aspectName, value] of writes) {
    const res = await post('/aspects?action=ingestProposal', {
      proposal: { entityType: urn.split(':')[2], entityUrn: urn, changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } },
    });
    if (res.status !== 200) throw new Error(`Seeding ${aspectName} of ${urn} failed: ${res.status} ${res.text.slice(0, 300)}`);
  }
}

/** Waits until the outbox holds nothing for these URNs (or containing this marker), so the snapshot is at rest. */
export async function waitForOutbox(driver: Driver, database: string, match: { urns?: string[]; marker?: string }, timeoutMs = 120_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    const res = await driver.executeQuery(
      'MATCH (o:Outbox) WHERE o.urn IN $urns OR ($marker IS NOT NULL AND o.urn CONTAINS $marker) RETURN count(o) AS n',
      { urns: match.urns ?? [], marker: match.marker ?? null },
      { database },
    );
    if (Number(res.records[0].get('n')) === 0) return;
    if (Date.now() - started > timeoutMs) throw new Error(`The outbox still holds entries for ${JSON.stringify(match).slice(0, 200)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * An entity node's properties less `restoredAt`: restoreIndices stamps it without changing any data, and another
 * client's `npm run restore -- --all` stamps every entity of the shared database.
 */
function withoutBookkeeping(p: unknown): Record<string, unknown> {
  const { restoredAt: _, ...rest } = p as Record<string, unknown>;
  return rest;
}

/** Every property of the sample's Entity and Aspect nodes and of every edge touching them, serialized stably. */
export async function snapshotSample(driver: Driver, database: string, s: SampleUrns): Promise<string> {
  const urns = Object.values(s);
  const q = async (cypher: string) => (await driver.executeQuery(cypher, { urns }, { database })).records.map((r) => r.toObject());
  const entities = (await q('MATCH (e:Entity) WHERE e.urn IN $urns RETURN properties(e) AS p ORDER BY e.urn')).map(({ p }) => ({ p: withoutBookkeeping(p) }));
  const aspects = await q('MATCH (a:Aspect) WHERE a.urn IN $urns RETURN labels(a) AS l, properties(a) AS p ORDER BY a.urn, a.name, a.version');
  const aspectLinks = await q('MATCH (e:Entity)-[r:ASPECT]->(a:Aspect) WHERE e.urn IN $urns RETURN e.urn AS e, properties(r) AS p, a.name AS name, a.version AS v ORDER BY e, name, v');
  const edges = await q(
    'MATCH (s:Entity)-[r]->(t:Entity) WHERE s.urn IN $urns OR t.urn IN $urns RETURN s.urn AS s, type(r) AS t, properties(r) AS p, t.urn AS o ORDER BY s, t, o, p.aspect',
  );
  return stringify({ entities, aspects, aspectLinks, edges }, null, 1)!;
}

/** What identifies the state of one entity: its node, its aspect versions (by content hash) and its edges. */
export interface Fingerprint {
  type: string;
  rev: number;
  hash: string;
}

/** Fingerprints of every entity not carrying the marker (keyed by urn). */
export async function fingerprintAll(driver: Driver, database: string, marker: string): Promise<Map<string, Fingerprint>> {
  const run = async (cypher: string) => (await driver.executeQuery(cypher, { marker }, { database })).records.map((r) => r.toObject());
  const nodes = await run('MATCH (e:Entity) WHERE NOT e.urn CONTAINS $marker RETURN e.urn AS urn, e.type AS type, e.rev AS rev, properties(e) AS p');
  const aspects = await run(
    "MATCH (a:Aspect) WHERE NOT a.urn CONTAINS $marker WITH a ORDER BY a.name, a.version RETURN a.urn AS urn, collect(a.name + '#' + a.version + '#' + a.hash) AS v",
  );
  const edges = await run(
    "MATCH (s:Entity)-[r]->(t:Entity) WHERE NOT s.urn CONTAINS $marker WITH s, r, t ORDER BY type(r), t.urn, r.aspect RETURN s.urn AS urn, collect(type(r) + '>' + t.urn + '#' + coalesce(r.aspect, '')) AS v",
  );
  const byUrn = (rows: Record<string, unknown>[]) => new Map(rows.map((r) => [r.urn as string, r.v as string[]]));
  const aspectsOf = byUrn(aspects);
  const edgesOf = byUrn(edges);
  return new Map(
    nodes.map((n) => [
      n.urn as string,
      {
        type: n.type as string,
        rev: Number(n.rev ?? 0),
        hash: createHash('sha1')
          .update(stringify([withoutBookkeeping(n.p), aspectsOf.get(n.urn as string) ?? [], edgesOf.get(n.urn as string) ?? []])!)
          .digest('hex'),
      },
    ]),
  );
}

export interface DataDiff {
  /** Entities that existed before and were left alone by everyone for `settleMs` before the run. */
  checked: number;
  /** Changed, created or removed although no accepted write of the run named them: violations. */
  unexplained: string[];
  /** Changed or created by the run's accepted writes (URNs without the marker, e.g. platforms). */
  attributed: string[];
  /** Changed while other clients were active on them (written less than `settleMs` before the run) or created by others. */
  external: string[];
}

/**
 * Compares fingerprints before and after. The shared stack has other clients, so an entity counts as "ours to keep"
 * only when nobody wrote it for `settleMs` before the run (its rev is the µs time of its last write).
 */
export function diffFingerprints(before: Map<string, Fingerprint>, after: Map<string, Fingerprint>, runStartMs: number, settleMs: number, attributable: Set<string>): DataDiff {
  const diff: DataDiff = { checked: 0, unexplained: [], attributed: [], external: [] };
  const settledBefore = (runStartMs - settleMs) * 1000;
  for (const [urn, b] of before) {
    const a = after.get(urn);
    const settled = b.rev < settledBefore;
    if (settled) diff.checked++;
    if (a && a.hash === b.hash) continue;
    const what = `${urn} ${a ? 'changed' : 'removed'}`;
    if (attributable.has(urn)) diff.attributed.push(what);
    else if (settled) diff.unexplained.push(what);
    else diff.external.push(what);
  }
  for (const urn of after.keys()) {
    if (before.has(urn)) continue;
    (attributable.has(urn) ? diff.attributed : diff.external).push(`${urn} created`);
  }
  return diff;
}

/** Removes every entity the run created (through the service, so search and time-series documents go too). */
export async function removeRunEntities(post: Post, driver: Driver, database: string, marker: string, known: Iterable<string>): Promise<{ removed: number; left: number; leftUrns: string[] }> {
  const removed = new Set<string>();
  for (let pass = 0; pass < 4; pass++) {
    const res = await driver.executeQuery('MATCH (e:Entity) WHERE e.urn CONTAINS $marker RETURN e.urn AS urn', { marker }, { database });
    const urns = new Set(res.records.map((r) => r.get('urn') as string));
    if (pass === 0) for (const u of known) if (u.includes(marker) && u.length < 10_000) urns.add(u);
    if (urns.size === 0) break;
    const list = [...urns];
    for (let i = 0; i < list.length; i += 16) {
      await Promise.all(
        list.slice(i, i + 16).map(async (urn) => {
          const r = await post('/entities?action=delete', { urn });
          if (r.status === 200) removed.add(urn);
        }),
      );
    }
  }
  const left = await driver.executeQuery('MATCH (e:Entity) WHERE e.urn CONTAINS $marker RETURN e.urn AS urn LIMIT 100', { marker }, { database });
  const leftUrns = left.records.map((r) => r.get('urn') as string);
  return { removed: removed.size, left: leftUrns.length, leftUrns };
}

/** Last resort for what the service could not delete (reported as a violation first): straight in Neo4j. */
export async function purgeRunEntities(driver: Driver, database: string, marker: string): Promise<void> {
  await driver.executeQuery('MATCH (e:Entity) WHERE e.urn CONTAINS $marker DETACH DELETE e', { marker }, { database });
  await driver.executeQuery('MATCH (a:Aspect) WHERE a.urn CONTAINS $marker DETACH DELETE a', { marker }, { database });
}
