/**
 * Load over loopback: 2,000 render requests from 16 concurrent clients against the Node adapter.
 * It must finish with no errors; requests per second and p99 latency are printed, never asserted
 * (this machine is shared, so absolute timings mean little).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../src/adapters/node.js';
import { handler } from '../../src/serverless/index.js';
import { VISION_MODEL, loadText } from './fixtures.js';

const REQUESTS = 2_000;
const CLIENTS = 16;

let server: RunningServer;
beforeAll(async () => {
  server = await serve(handler, { host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await server.close();
});

it(
  `serves ${REQUESTS} requests from ${CLIENTS} concurrent clients without an error`,
  { timeout: 180_000 },
  async () => {
    let next = 0;
    const latencies: number[] = [];
    const failures: string[] = [];
    const client = async () => {
      for (let i = next++; i < REQUESTS; i = next++) {
        const started = performance.now();
        // Every tenth request takes the single-PNG route, the rest the JSON one.
        const png = i % 10 === 0;
        const response = await fetch(`${server.url}/v1/render${png ? '?page=1' : ''}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: loadText(i), model: VISION_MODEL }),
        });
        const body = png
          ? new Uint8Array(await response.arrayBuffer())
          : ((await response.json()) as { pages?: unknown[] });
        latencies.push(performance.now() - started);
        const ok =
          response.status === 200 &&
          (png ? (body as Uint8Array)[1] === 0x50 : (body as { pages: unknown[] }).pages.length > 0);
        if (!ok) failures.push(`request ${i}: status ${response.status}`);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)]!;
    console.log(
      `serverless load: ${REQUESTS} requests, ${CLIENTS} clients, ${(REQUESTS / seconds).toFixed(0)} req/s, ` +
        `p50 ${p(0.5).toFixed(1)} ms, p99 ${p(0.99).toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`,
    );
    expect(failures).toEqual([]);
    expect(latencies).toHaveLength(REQUESTS);
  },
);
