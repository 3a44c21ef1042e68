/**
 * Nothing a client sends takes `glyphfold serve` down: forbidden methods, malformed Host headers,
 * limits that used to surface as 500s, aborted uploads, slow clients, and a seeded fuzz run. Every
 * case goes over a real socket to a real child process, and `/v1/health` must answer afterwards.
 */
import { connect } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '../../src/adapters/node.js';
import { createHandler } from '../../src/serverless/index.js';
import { prng, rawRequest, startServe, type ServeChild } from './serve-child.js';

const MODEL = 'claude-sonnet-4-5';

/**
 * Fuzzed requests per run. 10,000 (the figure) with `GLYPHFOLD_FUZZ_REQUESTS=10000`; the
 * default keeps `npm test` short on a shared 2-core machine.
 */
const FUZZ_REQUESTS = Number(process.env.GLYPHFOLD_FUZZ_REQUESTS ?? 1500);
const FUZZ_SEED = Number(process.env.GLYPHFOLD_FUZZ_SEED ?? 20261130);

let server: ServeChild;
beforeAll(async () => {
  server = await startServe();
});
afterAll(async () => {
  await server.stop();
});

async function healthy(): Promise<void> {
  const health = await fetch(server.url + '/v1/health');
  expect(health.status).toBe(200);
  await health.arrayBuffer();
}

const request = (head: string, body = '') =>
  Buffer.from(`${head.replace(/\n/g, '\r\n')}\r\n\r\n${body}`, 'latin1');

describe('requests the Fetch API cannot represent', () => {
  // TRACK is unknown to Node's parser, which answers 400 itself; TRACE reached `new Request()` and threw.
  for (const method of ['TRACE', 'TRACK', 'CONNECT']) {
    it(`${method} is refused (501, or 400 from the parser), and the server keeps serving`, async () => {
      const target = method === 'CONNECT' ? '127.0.0.1:1' : '/v1/health';
      const r = await rawRequest(
        server.port,
        request(`${method} ${target} HTTP/1.1\nHost: 127.0.0.1\nConnection: close`),
      );
      // CONNECT has no request listener: Node closes the socket without an answer, which is fine too.
      if (method !== 'CONNECT') {
        expect(r.status).toBe(method === 'TRACE' ? 501 : 400);
        if (method === 'TRACE') expect(r.text).toContain('"not_implemented"');
      }
      expect(server.alive()).toBe(true);
      await healthy();
    });
  }

  for (const host of ['[', '', 'a b', '%', 'x:-1', ':::', 'user@evil', 'a/b', '[::1', 'host:99999999']) {
    it(`Host ${JSON.stringify(host)} gets 400 naming the header`, async () => {
      const r = await rawRequest(
        server.port,
        request(`GET /v1/health HTTP/1.1\nHost: ${host}\nConnection: close`),
      );
      expect(r.status).toBe(400);
      expect(server.alive()).toBe(true);
      await healthy();
    });
  }

  it('accepts the Host forms clients really send', async () => {
    for (const host of ['127.0.0.1', `127.0.0.1:${server.port}`, 'localhost', '[::1]:80', 'my_box.local']) {
      const r = await rawRequest(
        server.port,
        request(`GET /v1/health HTTP/1.1\nHost: ${host}\nConnection: close`),
      );
      expect(r.status, host).toBe(200);
    }
  });
});

describe('limits answer their documented 4xx, not 500', () => {
  const post = (body: unknown) =>
    fetch(server.url + '/v1/render', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('30 KB of newlines: 413 too_many_pages (more pages than the model takes per request)', async () => {
    const response = await post({ text: 'a' + '\n'.repeat(30_000) + 'b', model: MODEL });
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(response.status).toBe(413);
    expect(body.error.code).toBe('too_many_pages');
    expect(body.error.message).toMatch(/needs \d{3} pages .* takes at most 100 images per request/);
  });

  it('cell 6x10 at scale 4: 413 too_many_pages naming cell and scale', async () => {
    const response = await post({ text: 'x\n'.repeat(15_000), model: MODEL, cell: '6x10', scale: 4 });
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(response.status).toBe(413);
    expect(body.error.code).toBe('too_many_pages');
    expect(body.error.message).toContain('(6x10, scale 4)');
  });

  it('no error response of the run was a 500 and stderr holds no stack', () => {
    expect(server.stderr()).not.toMatch(/internal error|\n\s+at /);
  });
});

describe('clients that go away', () => {
  it('an upload aborted mid-body leaves no error and no stack on stderr, one debug line with NODE_DEBUG', async () => {
    const quiet = await startServe([], { NODE_DEBUG: 'glyphfold' });
    try {
      const head = `POST /v1/render HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`;
      const bytes = Buffer.concat([Buffer.from(head), Buffer.alloc(50_000, 0x61)]);
      for (let i = 0; i < 5; i++) await rawRequest(quiet.port, bytes, { abortAfter: head.length + 20_000 });
      const health = await fetch(quiet.url + '/v1/health');
      expect(health.status).toBe(200);
      // The handler learns of the abort when it next reads: wait until every abort has been noted.
      while ((quiet.stderr().match(/client went away/g) ?? []).length < 5)
        await new Promise((r) => setTimeout(r, 20));
      expect(quiet.stderr()).not.toMatch(/internal error|\n\s+at /);
      expect(
        quiet
          .stderr()
          .split('\n')
          .filter((l) => l.includes('client went away')),
      ).toHaveLength(5);
    } finally {
      await quiet.stop();
    }
  });

  it('a client that sends headers slowly is answered 408 and disconnected (headers timeout)', async () => {
    const running = await serve(createHandler(), { port: 0, headersTimeout: 300, requestTimeout: 600 });
    try {
      expect(running.server.headersTimeout).toBe(300);
      expect(running.server.requestTimeout).toBe(600);
      const socket = connect(running.port, '127.0.0.1');
      await once(socket, 'connect');
      socket.write('GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // never finishes the headers
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
      await once(socket, 'close');
      expect(text).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await running.close();
    }
  });

  it('`serve` sets request and header timeouts by default', async () => {
    const running = await serve(createHandler(), { port: 0 });
    try {
      expect(running.server.headersTimeout).toBe(10_000);
      expect(running.server.requestTimeout).toBe(30_000);
    } finally {
      await running.close();
    }
  });
});

describe('seeded fuzz', () => {
  const METHODS = [
    'GET',
    'HEAD',
    'POST',
    'PUT',
    'DELETE',
    'OPTIONS',
    'PATCH',
    'TRACE',
    'TRACK',
    'PROPFIND',
    'M-SEARCH',
    'PURGE',
    'QUERY',
    'get',
    'BREW',
    'G\x00T',
    '',
  ];
  const PATHS = [
    '/v1/render',
    '/v1/health',
    '/',
    '//evil',
    '/v1/render?page=0',
    '/v1/render?page=2',
    '/%',
    '/%00',
    '/constructor',
    '/__proto__',
    '*',
    'http://x/v1/health',
    '/v1/render?page=999999',
  ];
  // Valid hosts half the time, so that enough requests reach the handler.
  const HOSTS = [
    '127.0.0.1',
    'localhost:1',
    '127.0.0.1',
    'localhost',
    '127.0.0.1',
    '',
    '[',
    'a b',
    '%',
    'x:-1',
    ':::',
    'user@evil',
    undefined,
  ];
  const BODIES = [
    '',
    '{}',
    '[]',
    'null',
    '{"model":"claude-sonnet-4-5","text":"hello"}',
    '{"model":"claude-sonnet-4-5","text":"hi","cell":"6x10","scale":4}',
    '{"model":"gpt-4o","text":"hi","cell":"6x10","scale":4}',
    '{"model":"claude-sonnet-4-5","transcript":[{"role":"user"}]}',
    '{"model":"claude-sonnet-4-5","transcript":"\\ufeff[]"}',
    '{"model":"claude-sonnet-4-5","text":"a' + '\\n'.repeat(30_000) + 'b"}',
    '{"model":"claude-sonnet-4-5","text":"' + 'x\\n'.repeat(15_000) + '","cell":"6x10","scale":4}',
    '{"model":"claude-sonnet-4-5","text":"x","allowGuess":"yes"}',
    '{"model":"o1-mini","text":"x"}',
    '{"model":"acme-9","text":"x"}',
    '{"__proto__":{"model":"x"}}',
    '\xff\xfe\x00',
    '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[',
  ];

  it(`the server answers /v1/health after each of ${FUZZ_REQUESTS} random requests and never 500s`, async () => {
    const random = prng(FUZZ_SEED);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const statuses = new Map<string, number>();
    for (let i = 0; i < FUZZ_REQUESTS; i++) {
      // Half the requests are well-formed enough to reach the handler; the rest probe the edges.
      const plain = random() < 0.5;
      const method = plain ? pick(['GET', 'POST', 'POST', 'HEAD', 'PUT']) : pick(METHODS);
      const path = plain ? pick(['/v1/render', '/v1/render', '/v1/render?page=1', ...PATHS]) : pick(PATHS);
      const host = plain ? '127.0.0.1' : pick(HOSTS);
      let body = pick(BODIES);
      if (random() < 0.1) body = body.slice(0, Math.floor(random() * body.length));
      const headers = ['Connection: close'];
      if (host !== undefined) headers.push(`Host: ${host}`);
      if (random() < 0.7)
        headers.push(
          `Content-Type: ${pick(['application/json', 'application/json', 'text/plain', 'x', ''])}`,
        );
      const lengthMode = plain ? 0 : random();
      if (lengthMode < 0.6) headers.push(`Content-Length: ${Buffer.byteLength(body, 'latin1')}`);
      else if (lengthMode < 0.7) headers.push(`Content-Length: ${pick(['-1', 'abc', '1e3', '0'])}`);
      else if (lengthMode < 0.8) headers.push(`Transfer-Encoding: ${pick(['chunked', 'gzip', 'x'])}`);
      if (!plain && random() < 0.1)
        headers.push(`${pick(['X-A', 'Bad Name', 'X-\x7f', ''])}: ${pick(['v', '\x01', ''])}`);
      const bytes = request(`${method} ${path} HTTP/1.1\n${headers.join('\n')}`, body);
      // A lying Content-Length (larger than the body) would wait for the request timeout: abort those.
      const abort = random() < 0.15 || lengthMode >= 0.7;
      const r = await rawRequest(
        server.port,
        bytes,
        abort ? { abortAfter: Math.floor(random() * bytes.length) } : {},
      );
      const key = abort ? 'aborted' : String(r.status ?? 'closed');
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (r.status !== undefined)
        expect(r.status, `request ${i}: ${JSON.stringify(bytes.toString('latin1').slice(0, 300))}`).not.toBe(
          500,
        );
      expect(server.alive(), `server died at request ${i}`).toBe(true);
      await healthy();
    }
    expect(server.stderr()).not.toMatch(/internal error|\n\s+at /);
    console.log(`fuzz: ${FUZZ_REQUESTS} requests (seed ${FUZZ_SEED}):`, Object.fromEntries(statuses));
  }, 600_000);
});
