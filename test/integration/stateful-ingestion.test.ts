import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { datahubClient, CLIENT_SETUP_TIMEOUT_MS, type DatahubClient } from '../support/datahub-client';
import { enc, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * Stateful ingestion as production pipelines run it: the official CLI's generic SQL source (sqlalchemy, on a SQLite
 * file) with `stateful_ingestion.remove_stale_metadata`. Its checkpoint (time-series aspect datahubIngestionCheckpoint
 * of the pipeline's data job) is stored and read back; a second run after a table was dropped soft-deletes that table
 * and only it — with the default ASYNC_BATCH sink and with SYNC.
 */
describe.each(['ASYNC_BATCH', 'SYNC'])('stateful ingestion with the %s sink', (mode) => {
  let svc: TestService;
  let client: DatahubClient;
  const id = uniqueId('st').toLowerCase();
  const tables = [`orders_${id}`, `customers_${id}`, `legacy_${id}`];
  const dataset = (table: string) => `urn:li:dataset:(urn:li:dataPlatform:sqlite,main.${table},PROD)`;
  let database: string;
  let recipe: string;

  beforeAll(async () => {
    svc = await startTestService();
    client = await datahubClient(svc.url);
    database = join(client.home, `${id}.sqlite`);
    const create = tables.map((t) => `CREATE TABLE ${t} (id INTEGER PRIMARY KEY, name TEXT, amount REAL);`).join(' ');
    execFileSync(join(client.venv, 'bin', 'python'), ['-c', `import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()`, database, create]);
    recipe = join(client.home, `${id}.yml`);
    await writeFile(
      recipe,
      [
        `pipeline_name: stateful-${id}`,
        'source:',
        '  type: sqlalchemy',
        '  config:',
        `    connect_uri: "sqlite:///${database}"`,
        '    platform: sqlite',
        '    stateful_ingestion:',
        '      enabled: true',
        '      remove_stale_metadata: true',
        'sink:',
        '  type: datahub-rest',
        '  config:',
        `    server: ${svc.url}`,
        `    mode: ${mode}`,
        '',
      ].join('\n'),
    );
  }, CLIENT_SETUP_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await client?.close();
    await svc?.close();
  });

  async function removed(urn: string): Promise<boolean | undefined> {
    const res = await svc.call('GET', `/entitiesV2/${enc(urn)}?aspects=List(status)`);
    expect(res.status).toBe(200);
    return res.body.aspects.status?.value.removed;
  }

  async function searchable(): Promise<string[]> {
    const res = await svc.call('POST', '/entities?action=search', { input: id, entity: 'dataset', start: 0, count: 50 });
    expect(res.status).toBe(200);
    return [...(res.body.value.entities as string[])].sort();
  }

  /** The search index follows Neo4j within about a second; waits until it shows `expected`. */
  async function eventuallySearchable(expected: string[]) {
    const deadline = Date.now() + 15_000;
    let found: string[] = [];
    while (Date.now() < deadline) {
      found = await searchable();
      if (JSON.stringify(found) === JSON.stringify(expected)) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(found).toEqual(expected);
  }

  async function ingest() {
    const run = await client.cli(['ingest', '-c', recipe]);
    expect(run.stderr + run.stdout).not.toMatch(/not capable of supporting stateful ingestion/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/'failures': \[\]/);
    return run;
  }

  it('a first run stores its checkpoint; the second, after a table was dropped, soft-deletes that table only', async () => {
    await ingest();
    for (const t of tables) expect(await removed(dataset(t))).toBe(false);
    await eventuallySearchable(tables.map(dataset).sort());

    // The checkpoint the CLI's state provider reads back: the latest value for the pipeline, on its data job.
    const job = `urn:li:dataJob:(urn:li:dataFlow:(datahub,stateful-${id},prod),sqlite_stale_entity_removal)`;
    const checkpoint = await svc.call('POST', '/aspects?action=getTimeseriesAspectValues', {
      urn: job,
      entity: 'dataJob',
      aspect: 'datahubIngestionCheckpoint',
      limit: 1,
      filter: { or: [{ and: [{ field: 'pipelineName', values: [`stateful-${id}`], condition: 'EQUAL' }] }] },
    });
    expect(checkpoint.status).toBe(200);
    expect(checkpoint.body.value.values).toHaveLength(1);
    expect(JSON.parse(checkpoint.body.value.values[0].aspect.value)).toMatchObject({ pipelineName: `stateful-${id}`, platformInstanceId: expect.any(String) });

    execFileSync(join(client.venv, 'bin', 'python'), ['-c', `import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('DROP TABLE ${tables[2]}'); c.commit()`, database]);
    const second = await ingest();
    expect(second.stdout).toContain(dataset(tables[2]));

    expect(await removed(dataset(tables[2]))).toBe(true);
    expect(await removed(dataset(tables[0]))).toBe(false);
    expect(await removed(dataset(tables[1]))).toBe(false);
    // The stale table keeps its metadata (a soft delete), but search no longer shows it.
    const kept = await svc.call('GET', `/entitiesV2/${enc(dataset(tables[2]))}?aspects=List(schemaMetadata)`);
    expect(kept.body.aspects.schemaMetadata.value.fields.length).toBe(3);
    await eventuallySearchable([dataset(tables[0]), dataset(tables[1])].sort());
    // Nor does browse: the folder of the default browse paths lists the two live tables only.
    const browsed = await svc.call('POST', '/entities?action=browse', { path: '/prod/sqlite/main', entity: 'dataset', start: 0, limit: 1000 });
    const listed = (browsed.body.value.entities as { urn: string }[]).map((e) => e.urn).filter((u) => u.includes(id));
    expect(listed.sort()).toEqual([dataset(tables[0]), dataset(tables[1])].sort());
  });
});
