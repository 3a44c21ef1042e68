/** The Node adapter and `glyphfold serve`, over loopback (127.0.0.1). */
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../src/adapters/node.js';
import { createHandler, type Limits } from '../../src/serverless/index.js';
import { BASE, ERROR_CASES } from './cases.js';
import { VISION_MODEL } from './fixtures.js';

let server: RunningServer;
beforeAll(async () => {
  server = await serve(createHandler({ limits: { maxBodyBytes: 64 * 1024 } }), { port: 0 });
});
afterAll(async () => {
  await server.close();
});

/** Sends a chunked upload (no Content-Length) of `total` bytes; resolves with status and body. */
function chunkedUpload(url: string, total: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url + '/v1/render', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(16 * 1024, 0x78);
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    req.write('{"model":"x","text":"');
    pump();
  });
}

describe('node adapter', () => {
  it('serves health and renders over HTTP', async () => {
    const health = await fetch(server.url + '/v1/health');
    expect(health.status).toBe(200);
    const response = await fetch(server.url + '/v1/render', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello over http', model: VISION_MODEL }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { pages: unknown[] };
    expect(body.pages).toHaveLength(1);
  });

  it('answers 413 to a chunked upload past the cap and keeps the socket long enough to say so', async () => {
    const { status, body } = await chunkedUpload(server.url, 1024 * 1024);
    expect(status).toBe(413);
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'body_too_large' } });
  });

  it('passes 405 with its Allow header through', async () => {
    const response = await fetch(server.url + '/v1/health', { method: 'POST', body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('glyphfold serve', () => {
  it('listens on the port it prints, serves health, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stdout.setEncoding('utf8');
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (c: string) => {
          out += c;
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`serve exited early with ${code}: ${out}`)));
      });
      const health = await fetch(url + '/v1/health');
      expect(health.status).toBe(200);
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('rejects a bad port with a usage error (exit 2)', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', 'eighty'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let err = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => (err += c));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(err).toContain("--port must be an integer ≥ 0, found 'eighty'");
  });
});

describe('documented error statuses over HTTP (the same table as handler.test.ts)', () => {
  const servers = new Map<string, Promise<RunningServer>>();
  const serverFor = (limits: Partial<Limits> | undefined) => {
    const key = JSON.stringify(limits ?? {});
    let running = servers.get(key);
    if (!running) servers.set(key, (running = serve(createHandler(limits ? { limits } : {}), { port: 0 })));
    return running;
  };
  afterAll(async () => {
    for (const running of servers.values()) await (await running).close();
  });

  for (const c of ERROR_CASES) {
    it(`${c.name} → ${c.status} ${c.code}`, async () => {
      const running = await serverFor(c.limits);
      const request = c.request();
      const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
      const response = await fetch(running.url + request.url.slice(BASE.length), {
        method: request.method,
        headers: request.headers,
        ...(hasBody ? { body: await request.arrayBuffer() } : {}),
      });
      expect(response.status).toBe(c.status);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(c.code);
    });
  }
});
