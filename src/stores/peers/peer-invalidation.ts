import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Peer, PeerEndpoint, ProcessLease } from '../graph/process-lease';

export interface PeerInvalidationOptions {
  /** Address the endpoint listens on, and the port (0: any free one). */
  host: string;
  port: number;
  /** Host name other processes reach this one by; default: `host`, or this machine's name when `host` is a wildcard. */
  advertisedHost?: string;
  /** How long a peer may take to confirm before it is revoked instead. */
  timeoutMs: number;
}

const MAX_BODY_BYTES = 8 * 1024 * 1024;

function advertisedUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * The channel between service processes that keeps their unchecked cached reads current: each process listens for
 * other processes' writes (`listen`), and tells the peers a write transaction found (ProcessLease) which entities it
 * changed before the write is acknowledged (`notify`). A peer that does not confirm in time is revoked, and the write
 * waits its lease out: never acknowledged while a process might still serve the old value without asking Neo4j.
 */
export class PeerInvalidation {
  private readonly token = randomBytes(24).toString('hex');
  private server: Server | null = null;
  private readonly revoking = new Map<string, Promise<void>>();

  constructor(
    private readonly lease: ProcessLease,
    private readonly options: PeerInvalidationOptions,
    private readonly logger?: Logger,
  ) {}

  /** Starts the endpoint that drops this process's cached copies of entities other processes wrote. */
  async listen(onInvalidate: (urns: string[]) => void): Promise<PeerEndpoint> {
    const server = createServer((req, res) => {
      const answer = (status: number) => res.writeHead(status, { 'content-length': '0' }).end();
      if (req.method !== 'POST' || req.url !== '/invalidate') return answer(404);
      const presented = Buffer.from(String(req.headers.authorization ?? ''));
      const expected = Buffer.from(`Bearer ${this.token}`);
      if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return answer(401);
      readBody(req)
        .then((text) => {
          const urns = (JSON.parse(text) as { urns?: unknown }).urns;
          if (!Array.isArray(urns) || !urns.every((u) => typeof u === 'string')) return answer(400);
          onInvalidate(urns);
          answer(204);
        })
        .catch(() => answer(400));
    });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => resolve());
    });
    // The endpoint alone keeps no process alive.
    server.unref();
    this.server = server;
    const { port } = server.address() as AddressInfo;
    const wildcard = ['0.0.0.0', '::', ''].includes(this.options.host);
    const host = this.options.advertisedHost || (wildcard ? hostname() : this.options.host);
    return { url: advertisedUrl(host, port), token: this.token };
  }

  /** Before a write to these entities is acknowledged: every peer has dropped its copies, or can no longer serve them. */
  async notify(peers: Iterable<Peer>, urns: readonly string[]): Promise<void> {
    const body = JSON.stringify({ urns });
    await Promise.all(
      [...peers].map(async (peer) => {
        if (peer.waitMs !== null) return this.lease.waitOut(peer.waitMs);
        if (await this.told(peer, body)) return;
        await this.revoke(peer);
      }),
    );
  }

  /** One revocation per peer at a time: the groups that could not tell it meanwhile wait on the same one. */
  private revoke(peer: Peer): Promise<void> {
    let pending = this.revoking.get(peer.id);
    if (!pending) {
      pending = this.lease.revoke(peer).finally(() => this.revoking.delete(peer.id));
      this.revoking.set(peer.id, pending);
    }
    return pending;
  }

  private async told(peer: Peer, body: string): Promise<boolean> {
    try {
      const res = await fetch(`${peer.url}/invalidate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${peer.token}` },
        body,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      await res.arrayBuffer();
      return res.status === 204;
    } catch (err) {
      this.logger?.debug({ peer: peer.id, err: (err as Error).message }, 'peer invalidation failed');
      return false;
    }
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
