import type { Context, Next } from 'koa';
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { DomainError, OverloadedError } from '../model/errors';

/** The JSON error body of every failed request. The official client reads `message`. */
export interface ErrorBody {
  status: number;
  message: string;
  exceptionClass: string;
}

interface HttpishError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
  message?: string;
  code?: unknown;
  meta?: unknown;
}

/** Errors thrown by koa and its body parser (raw-body / co-body), keyed by their `type`. */
const PARSER_ERRORS: Record<string, { status: number; exceptionClass: string; message: string }> = {
  'entity.too.large': { status: 413, exceptionClass: 'PayloadTooLargeError', message: 'Request body exceeds the configured limit' },
  'entity.parse.failed': { status: 400, exceptionClass: 'InvalidInputError', message: 'Malformed JSON in request body' },
  'encoding.unsupported': { status: 415, exceptionClass: 'InvalidInputError', message: 'Unsupported content encoding' },
  'charset.unsupported': { status: 415, exceptionClass: 'InvalidInputError', message: 'Unsupported charset' },
  'request.aborted': { status: 400, exceptionClass: 'InvalidInputError', message: 'Request aborted' },
  'request.size.invalid': { status: 400, exceptionClass: 'InvalidInputError', message: 'Request size did not match content length' },
};

/** The one place that maps an error to an HTTP status and body. Never leaks stack traces or backend internals. */
export function toErrorBody(err: unknown): ErrorBody {
  if (err instanceof DomainError) {
    return { status: err.status, message: err.message, exceptionClass: err.name };
  }
  const e = (err ?? {}) as HttpishError;
  if (e.type && PARSER_ERRORS[e.type]) {
    const known = PARSER_ERRORS[e.type];
    return { status: known.status, message: known.message, exceptionClass: known.exceptionClass };
  }
  // A body sent with Content-Encoding gzip/deflate/br that does not decompress: zlib's stream error, not ours.
  if (typeof e.code === 'string' && /^(Z_|ERR__ERROR_|ERR_BROTLI)/.test(e.code)) {
    return { status: 400, message: 'Request body could not be decompressed as its Content-Encoding says', exceptionClass: 'InvalidInputError' };
  }
  const status = e.status ?? e.statusCode;
  if (err instanceof SyntaxError && status === 400) {
    return { status: 400, message: `Malformed JSON in request body: ${err.message}`, exceptionClass: 'InvalidInputError' };
  }
  // koa's and the body parser's errors say why; a search client's 4xx (the engine refusing a request, carrying `meta`)
  // would show engine internals and is answered as an internal error instead.
  if (typeof status === 'number' && status >= 400 && status < 500 && e.expose !== false && e.meta === undefined) {
    return { status, message: e.message || 'Bad request', exceptionClass: 'InvalidInputError' };
  }
  return { status: 500, message: 'Internal server error', exceptionClass: 'InternalError' };
}

export function errorMiddleware(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
    } catch (err) {
      const body = toErrorBody(err);
      if (body.status >= 500) {
        (ctx.state.log as Logger | undefined ?? logger).error({ err }, 'request failed');
      }
      ctx.status = body.status;
      if (body.status === 401) ctx.set('WWW-Authenticate', 'Bearer');
      if (err instanceof OverloadedError) ctx.set('Retry-After', String(err.retryAfterSeconds));
      ctx.body = body;
    }
  };
}

/**
 * Requests node's HTTP parser refuses before koa sees them (unknown method, malformed request line or headers, headers
 * or URL over the size limit) get the common JSON error body too, instead of node's bare status line.
 */
export function answerUnparsableRequests(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const message =
      status === 431 ? 'Request line or headers are too large' : status === 408 ? 'Request not received in time' : 'Malformed HTTP request';
    const body = JSON.stringify({ status, message, exceptionClass: 'InvalidInputError' } satisfies ErrorBody);
    // The answer to a HEAD request has no body: a client reads one as the start of the next response.
    const rawPacket = (err as NodeJS.ErrnoException & { rawPacket?: Buffer }).rawPacket;
    const head = Buffer.isBuffer(rawPacket) && rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
    );
  });
}
