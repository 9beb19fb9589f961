import { fork } from 'node:child_process';
import http from 'node:http';
import neo4j, { type Session } from 'neo4j-driver';

/**
 * What a bare Node HTTP server in front of Neo4j adds to a read on this machine: node:http alone (no framework,
 * auth, validation or cache) that answers GET /<urn> with one auto-commit statement (`latest`) and JSON.stringify of
 * the rows, and GET /relationships?urn=<urn> with another (`incoming`: rows `total`, `page` of `type|urn`), shaped as
 * the service answers. bench/read.ts measures it beside the same raw statements, so the service's ratio can be read
 * against the floor's.
 */
export async function startHttpFloor(neo4jUri: string, statements: { latest: string; incoming: string }): Promise<{ url: string; stop(): void }> {
  const port = 20000 + Math.floor(Math.random() * 2000);
  const child = fork(__filename, ['--serve', neo4jUri, String(port)], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, FLOOR_LATEST: statements.latest, FLOOR_INCOMING: statements.incoming },
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the HTTP floor server exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

function serve(neo4jUri: string, port: number, latest: string, incoming: string) {
  const driver = neo4j.driver(neo4jUri, undefined, { disableLosslessIntegers: true });
  /** GET /relationships?urn=…&types=…&count=…: the first page of incoming relationships, as the service shapes it. */
  const relationships = async (session: Session, query: URLSearchParams) => {
    const count = Number(query.get('count') ?? 100);
    const types = query.getAll('types');
    const [record] = (await session.run(incoming, { urn: query.get('urn'), types, start: neo4j.int(0), count: neo4j.int(count) })).records;
    const page = (record?.get('page') ?? []) as string[];
    const rows = page.map((row) => ({ type: row.slice(0, row.indexOf('|')), entity: row.slice(row.indexOf('|') + 1) }));
    return { start: 0, count: rows.length, total: Number(record?.get('total') ?? 0), relationships: rows };
  };
  /** GET /<urn>: the entity's latest aspects, as entitiesV2 shapes them. */
  const entity = async (session: Session, urn: string) => {
    const { records } = await session.run(latest, { urn, names: null });
    const aspects: Record<string, unknown> = {};
    for (const r of records) {
      aspects[r.get('name')] = { name: r.get('name'), type: 'VERSIONED', version: 0, value: JSON.parse(r.get('value')), created: { time: r.get('createdTime'), actor: r.get('createdActor') } };
    }
    return { urn, entityName: 'dataset', aspects };
  };
  http
    .createServer(async (req, res) => {
      const url = req.url ?? '/';
      const session = driver.session({ database: 'neo4j', defaultAccessMode: neo4j.session.READ });
      try {
        const answer = url.startsWith('/relationships?') ? await relationships(session, new URLSearchParams(url.slice('/relationships?'.length))) : await entity(session, decodeURIComponent(url.slice(1)));
        const body = JSON.stringify(answer);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      } catch (err) {
        res.writeHead(500).end(String(err));
      } finally {
        await session.close();
      }
    })
    .listen(port, '127.0.0.1', () => process.send?.('up'));
}

if (process.argv[2] === '--serve') serve(process.argv[3], Number(process.argv[4]), process.env.FLOOR_LATEST ?? '', process.env.FLOOR_INCOMING ?? '');
