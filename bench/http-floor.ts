import { fork } from 'node:child_process';
import http from 'node:http';
import neo4j from 'neo4j-driver';

/**
 * What a bare Node HTTP server in front of Neo4j adds to a read on this machine: node:http alone (no framework,
 * auth, validation or cache) that answers GET /<urn> with one auto-commit statement and JSON.stringify of the rows.
 * bench/read.ts measures it beside the same raw statement, so the service's ratio can be read against the floor's.
 */
export async function startHttpFloor(neo4jUri: string, statement: string): Promise<{ url: string; stop(): void }> {
  const port = 20000 + Math.floor(Math.random() * 2000);
  const child = fork(__filename, ['--serve', neo4jUri, String(port)], { execArgv: ['--import', 'tsx'], env: { ...process.env, FLOOR_STATEMENT: statement } });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the HTTP floor server exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

function serve(neo4jUri: string, port: number, statement: string) {
  const driver = neo4j.driver(neo4jUri, undefined, { disableLosslessIntegers: true });
  http
    .createServer(async (req, res) => {
      const urn = decodeURIComponent((req.url ?? '/').slice(1));
      const session = driver.session({ database: 'neo4j', defaultAccessMode: neo4j.session.READ });
      try {
        const { records } = await session.run(statement, { urn, names: null });
        const aspects: Record<string, unknown> = {};
        for (const r of records) {
          aspects[r.get('name')] = { name: r.get('name'), type: 'VERSIONED', version: 0, value: JSON.parse(r.get('value')), created: { time: r.get('createdTime'), actor: r.get('createdActor') } };
        }
        const body = JSON.stringify({ urn, entityName: 'dataset', aspects });
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

if (process.argv[2] === '--serve') serve(process.argv[3], Number(process.argv[4]), process.env.FLOOR_STATEMENT ?? '');
