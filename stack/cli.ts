/**
 * npx tsx stack/cli.ts fetch|start|stop|restart|status [neo4j] [opensearch] [elasticsearch]
 *   [--fresh]                 start with a fresh (non-persistent) data dir
 *   [--port name=N]...        fixed main port (bolt for neo4j, http for the engines)
 *   [--heap name=1g]...       JVM heap
 *   [--root DIR]              runtime folder (default <repo>/.stack)
 * Default servers: neo4j opensearch (stop/status: all three).
 */
import {
  ALL_SERVERS,
  fetchServers,
  restartServer,
  ServerName,
  serverState,
  stackStatus,
  startServers,
  stopServers,
} from './index';

const USAGE = `usage: npx tsx stack/cli.ts <fetch|start|stop|restart|status> [neo4j] [opensearch] [elasticsearch]
       [--fresh] [--port name=N]... [--heap name=SIZE]... [--root DIR]`;

function parse(argv: string[]) {
  const [cmd, ...rest] = argv;
  const servers: ServerName[] = [];
  const ports: Partial<Record<ServerName, number>> = {};
  const heap: Partial<Record<ServerName, string>> = {};
  let root: string | undefined;
  let fresh = false;
  const asName = (s: string): ServerName => {
    if (!(ALL_SERVERS as readonly string[]).includes(s)) throw new Error(`unknown server '${s}'\n${USAGE}`);
    return s as ServerName;
  };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    // --flag value | --flag=value
    const value = (flag: string): string | undefined => {
      if (a.startsWith(`${flag}=`)) return a.slice(flag.length + 1);
      if (a !== flag) return undefined;
      const v = rest[++i];
      if (v === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    const pair = (v: string, flag: string): [ServerName, string] => {
      const eq = v.indexOf('=');
      if (eq <= 0) throw new Error(`${flag} expects name=value, got '${v}'\n${USAGE}`);
      return [asName(v.slice(0, eq)), v.slice(eq + 1)];
    };
    let v: string | undefined;
    if (a === '--fresh') fresh = true;
    else if ((v = value('--root')) !== undefined) root = v;
    else if ((v = value('--port')) !== undefined) {
      const [n, p] = pair(v, '--port');
      ports[n] = Number(p);
      if (!Number.isInteger(ports[n])) throw new Error(`bad port '${p}'`);
    } else if ((v = value('--heap')) !== undefined) {
      const [n, h] = pair(v, '--heap');
      heap[n] = h;
    } else if (a === '-h' || a === '--help') {
      console.log(USAGE);
      process.exit(0);
    } else servers.push(asName(a));
  }
  return { cmd, servers, ports, heap, root, fresh };
}

function printStatus(root?: string) {
  const st = stackStatus(root);
  for (const name of ALL_SERVERS) {
    const s = st[name];
    const rec = serverState(name, root);
    if (s.running) {
      const extra = rec ? Object.entries(rec.ports).map(([k, p]) => `${k} ${p}`).join(', ') : '';
      console.log(`${name.padEnd(14)} running  ${s.url}  pid ${s.pid}  (${extra}; data ${rec?.dataDir})`);
    } else {
      console.log(`${name.padEnd(14)} stopped${rec ? `  (last: ${rec.url})` : ''}`);
    }
  }
}

async function main() {
  const { cmd, servers, ports, heap, root, fresh } = parse(process.argv.slice(2));
  const log = (l: string) => console.log(`[stack] ${l}`);
  const defaults: ServerName[] = ['neo4j', 'opensearch'];
  switch (cmd) {
    case 'fetch':
      await fetchServers(servers.length ? servers : defaults, log);
      log('all fetched');
      break;
    case 'start': {
      const started = Date.now();
      const infos = await startServers({
        root,
        servers: servers.length ? servers : defaults,
        ports,
        heap,
        persistent: !fresh,
        log,
      });
      log(`ready in ${((Date.now() - started) / 1000).toFixed(1)}s`);
      for (const info of Object.values(infos)) console.log(`${info.name.padEnd(14)} ${info.url}  pid ${info.pid}`);
      break;
    }
    case 'stop':
      await stopServers(servers.length ? servers : [...ALL_SERVERS], root);
      log('stopped');
      printStatus(root);
      break;
    case 'restart':
      for (const name of servers.length ? servers : defaults) {
        const info = await restartServer(name, root, log);
        console.log(`${info.name.padEnd(14)} ${info.url}  pid ${info.pid}`);
      }
      break;
    case 'status':
      printStatus(root);
      break;
    default:
      console.error(USAGE);
      process.exit(2);
  }
}

main().then(
  () => process.exit(0),
  (e: Error) => {
    console.error(`[stack] ${e.message}`);
    process.exit(1);
  },
);
