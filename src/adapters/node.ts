/**
 * Node adapter for a Fetch-API handler: `node:http` request → `Request`, `Response` → `node:http`
 * response. The handler itself (src/serverless) imports no runtime; this file is the only Node glue.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

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

/** Builds the Fetch `Request` for a Node request; the URL's origin comes from the Host header. */
export function toRequest(req: IncomingMessage, origin?: string): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const base = origin ?? `http://${req.headers.host ?? 'localhost'}`;
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(new URL(req.url ?? '/', base), {
    method,
    headers,
    ...(hasBody ? { body: bodyStream(req), duplex: 'half' } : {}),
  } as RequestInit);
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

/** A `node:http` request listener that runs `handler`. */
export function toNodeListener(handler: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handler(toRequest(req))
      .then((response) => writeResponse(response, res))
      .catch((err: unknown) => {
        // The handler maps its own errors; reaching here means the socket or the adapter failed.
        if (!res.headersSent) {
          res.statusCode = 500;
          res.setHeader('content-type', 'application/json; charset=utf-8');
          res.end(JSON.stringify({ error: { code: 'internal', message: 'adapter error' } }));
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
}

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
  const server = createServer(toNodeListener(handler));
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
