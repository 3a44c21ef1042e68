/**
 * Node adapter for a Fetch-API handler: `node:http` request → `Request`, `Response` → `node:http`
 * response. The handler itself (src/serverless) imports no runtime; this file is the only Node glue.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { debuglog } from 'node:util';

/** `NODE_DEBUG=glyphfold` shows one line per aborted request; otherwise aborts are silent. */
const debug = debuglog('glyphfold');

export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * The request body as a web stream. Unlike `Readable.toWeb`, cancelling it (the handler's 413 on an
 * oversized upload) discards the rest of the upload instead of destroying the socket, so the client
 * still receives the error response.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on('data', (chunk: Buffer) => {
          if (!open) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          // Backpressure: stop the socket until the handler pulls again.
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.on('end', () => {
          if (open) controller.close();
          open = false;
        });
        req.on('error', (err) => {
          if (open) controller.error(err);
          open = false;
        });
        // A client that disconnects mid-upload may end the stream with 'close' alone: without this
        // the handler would wait for the rest of the body forever.
        req.on('close', () => {
          if (open) controller.error(new Error('request aborted by the client'));
          open = false;
        });
      },
      pull() {
        req.resume();
      },
      cancel() {
        open = false;
        req.resume();
      },
    },
    { highWaterMark: 1 << 16, size: (chunk) => chunk.byteLength },
  );
}

/** A request the adapter answers itself, before the handler: the Fetch API cannot represent it. */
export class AdapterRefusal extends Error {
  override name = 'AdapterRefusal';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Methods `new Request()` refuses (Fetch spec, "forbidden method"); Node's parser accepts them. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** A Host header: a name or IPv4 address, or a bracketed IPv6 address, then an optional port. */
const HOST =
  /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Builds the Fetch `Request` for a Node request; the URL's origin comes from the Host header. Throws
 * `AdapterRefusal` (501 for a forbidden method, 400 for a malformed Host or target) instead of the
 * `TypeError` the Fetch constructors throw.
 */
export function toRequest(req: IncomingMessage, origin?: string): Request {
  const method = req.method ?? 'GET';
  if (FORBIDDEN_METHODS.has(method.toUpperCase()))
    throw new AdapterRefusal(501, 'not_implemented', `method ${method} is not supported by this server`);
  const headers = new Headers();
  try {
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  } catch {
    throw new AdapterRefusal(400, 'bad_request', 'a request header has an invalid name or value');
  }
  let base = origin;
  if (base === undefined) {
    const host = req.headers.host;
    if (host !== undefined && !HOST.test(host))
      throw new AdapterRefusal(400, 'bad_request', `malformed Host header ${JSON.stringify(host)}`);
    base = `http://${host ?? 'localhost'}`;
  }
  let url: URL;
  try {
    url = new URL(req.url ?? '/', base);
  } catch {
    throw new AdapterRefusal(400, 'bad_request', `malformed request target ${JSON.stringify(req.url)}`);
  }
  const hasBody = method !== 'GET' && method !== 'HEAD';
  try {
    return new Request(url, {
      method,
      headers,
      ...(hasBody ? { body: bodyStream(req), duplex: 'half' } : {}),
    } as RequestInit);
  } catch (err) {
    throw new AdapterRefusal(400, 'bad_request', `request refused: ${(err as Error).message}`);
  }
}

/** Writes a Fetch `Response` to a Node response, streaming the body. */
export async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, key) => res.setHeader(key, value));
  if (response.body === null) {
    res.end();
    return;
  }
  await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), res);
}

function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  // The request body (if any) was not read: close instead of parsing leftovers as the next request.
  res.setHeader('connection', 'close');
  res.end(JSON.stringify({ error: { code, message } }));
}

/**
 * A `node:http` request listener that runs `handler`. Nothing a client sends can throw out of it: a
 * request the Fetch API cannot represent is answered here, and a client that disconnects is noted
 * with one debug line (`NODE_DEBUG=glyphfold`), not logged as a server error.
 */
export function toNodeListener(handler: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    let request: Request;
    try {
      request = toRequest(req);
    } catch (err) {
      if (err instanceof AdapterRefusal) sendError(res, err.status, err.code, err.message);
      else sendError(res, 400, 'bad_request', 'request could not be read');
      return;
    }
    const aborted = () => req.destroyed && !res.writableFinished;
    handler(request)
      .then((response) => writeResponse(response, res))
      .catch((err: unknown) => {
        if (aborted() || res.destroyed) {
          debug('%s %s: client went away (%s)', req.method, req.url, (err as Error)?.message ?? err);
          res.destroy();
          return;
        }
        // The handler maps its own errors; reaching here means the socket or the adapter failed.
        if (!res.headersSent) {
          sendError(res, 500, 'internal', 'adapter error');
        } else {
          res.destroy(err instanceof Error ? err : undefined);
        }
      });
  };
}

export interface ServeOptions {
  /** 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1: listening on every interface is a choice the caller makes explicitly. */
  host?: string;
  /** Milliseconds a client has to send all request headers (default 10,000; Node's own is 60,000). */
  headersTimeout?: number;
  /** Milliseconds a client has to send the whole request (default 30,000; Node's own is 300,000). */
  requestTimeout?: number;
}

/** Timeouts `serve` sets unless told otherwise: a slow client holds a socket for at most this long. */
export const DEFAULT_TIMEOUTS = { headersTimeout: 10_000, requestTimeout: 30_000 } as const;

export interface RunningServer {
  server: Server;
  /** `http://host:port` as bound. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts a `node:http` server running `handler`; resolves once it listens. */
export function serve(handler: FetchHandler, options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const headersTimeout = options.headersTimeout ?? DEFAULT_TIMEOUTS.headersTimeout;
  const requestTimeout = options.requestTimeout ?? DEFAULT_TIMEOUTS.requestTimeout;
  const server = createServer(
    {
      headersTimeout,
      // requestTimeout 0 would disable it; Node requires headersTimeout ≤ requestTimeout.
      requestTimeout: Math.max(requestTimeout, headersTimeout),
      // Timeouts are checked on this interval (Node's default, 30 s, would let short timeouts overrun).
      connectionsCheckingInterval: Math.min(1000, headersTimeout),
    },
    toNodeListener(handler),
  );
  // A socket error (a reset, a malformed request line) concerns that client only.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    debug('client error: %s', err.code ?? err.message);
    if (socket.writable && !socket.destroyed && err.code !== 'ECONNRESET') {
      const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
      socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    } else socket.destroy();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve({
        server,
        url: `http://${shown}:${port}`,
        port,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((err) => (err ? fail(err) : done()));
            server.closeAllConnections();
          }),
      });
    });
  });
}
