/**
 * Synchronous queries, for the item bodies an open history dropped from memory: reads of a history
 * (`path()`, `get()`, `items()`) are synchronous in the store contract, and the folder store reads its
 * log back with `readSync`. Here a worker thread holds a connection of its own and runs the query; the
 * calling thread sleeps on a shared flag (`Atomics.wait`) until the worker has posted the rows, then
 * takes them with `receiveMessageOnPort`. The caller is blocked for the round trip, as it would be by
 * a disk read; a history whose bodies fit in `retainBytes` never reads back, and the worker is started
 * on the first read.
 */
import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type pg from 'pg';

/**
 * The worker, as CommonJS source (a TypeScript file cannot be given to a worker both from `src/`
 * under a test runner and from `dist/`). It connects on the first query and again after its
 * connection dropped (a server restart), once per query.
 */
const WORKER = `
const { workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const pg = require(workerData.pg);
const flag = new Int32Array(workerData.flag);
const port = workerData.port;
let client;
async function connected() {
  if (client) return client;
  const c = new pg.Client(workerData.config);
  c.on('error', () => { if (client === c) client = undefined; });
  await c.connect();
  client = c;
  return c;
}
async function run(sql, params) {
  for (let attempt = 0; ; attempt++) {
    let c;
    try {
      c = await connected();
      return (await c.query(sql, params)).rows;
    } catch (err) {
      const lost = !client || client !== c || /^(08|57P0)/.test(err.code || '') || /^E[A-Z]+$/.test(err.code || '');
      if (c && client === c && lost) { client = undefined; c.end().catch(() => {}); }
      if (!lost || attempt >= 1) throw err;
    }
  }
}
port.on('message', async (m) => {
  if (m.close) {
    if (client) await client.end().catch(() => {});
    port.close();
    return;
  }
  let reply;
  try {
    let rows = await run(m.sql, m.params);
    if (m.parseBody)
      rows = rows.map((r) => {
        const out = { line: r.line, hash: createHash('sha256').update(r.body).digest('hex') };
        try {
          out.value = JSON.parse(r.body);
        } catch (err) {
          out.error = err.message;
        }
        return out;
      });
    reply = { id: m.id, rows };
  } catch (err) {
    reply = { id: m.id, error: String((err && err.message) || err), code: err && err.code };
  }
  port.postMessage(reply);
  Atomics.store(flag, 0, m.id);
  Atomics.notify(flag, 0);
});
`;

/** How long a read waits for its answer before it fails (the worker's query may still finish later). */
const READ_TIMEOUT_MS = 120_000;

export class SyncReader {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly flag: Int32Array;
  private seq = 0;
  private closed = false;
  private exited = false;

  /** `config`: the store's connection settings; functions (a password callback) cannot cross to the worker and are left out. */
  constructor(config: pg.ClientConfig) {
    const shared = new SharedArrayBuffer(4);
    this.flag = new Int32Array(shared);
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const plain = Object.fromEntries(Object.entries(config).filter(([, v]) => typeof v !== 'function'));
    this.worker = new Worker(WORKER, {
      eval: true,
      workerData: {
        pg: createRequire(import.meta.url).resolve('pg'),
        flag: shared,
        port: port2,
        config: plain,
      },
      transferList: [port2],
    });
    // Neither keeps the process alive: a harness that forgets to close the store still exits.
    this.worker.unref();
    this.port.unref();
    this.worker.on('error', () => {}); // the read waiting for it times out; the next one starts a new worker
    this.worker.on('exit', () => (this.exited = true));
  }

  /** False once the worker is gone (it crashed, or `close()`): the store then starts another. */
  get usable(): boolean {
    return !this.closed && !this.exited;
  }

  /**
   * Runs `sql` and returns its rows, blocking this thread until they arrive. With `parseBody`, each
   * row's `line` and `body` come back as `{ line, hash, value }` (or `error` for a body that is not
   * JSON): the worker hashes and parses the body, so only the parsed value crosses to this thread,
   * one copy of a large body instead of two (the text, then what `JSON.parse` makes of it).
   */
  query<R>(sql: string, params: unknown[], options: { parseBody?: boolean } = {}): R[] {
    if (this.closed) throw new Error('the store is closed');
    const id = (this.seq = (this.seq % 0x7ffffffe) + 1);
    this.port.postMessage({ id, sql, params, parseBody: options.parseBody === true });
    const deadline = Date.now() + READ_TIMEOUT_MS;
    for (;;) {
      const seen = Atomics.load(this.flag, 0);
      if (seen === id) break;
      const left = deadline - Date.now();
      if (left <= 0 || Atomics.wait(this.flag, 0, seen, left) === 'timed-out')
        if (Atomics.load(this.flag, 0) !== id)
          throw new Error(`no answer from PostgreSQL within ${READ_TIMEOUT_MS} ms`);
    }
    // Answers to reads that timed out before come first: skip them.
    for (;;) {
      const got = receiveMessageOnPort(this.port) as
        { message: { id: number; rows?: R[]; error?: string; code?: string } } | undefined;
      if (!got) throw new Error('internal: the reader signalled an answer that is not there');
      const m = got.message;
      if (m.id !== id) continue;
      if (m.error !== undefined)
        throw Object.assign(new Error(m.error), m.code !== undefined ? { code: m.code } : {});
      return m.rows!;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.port.postMessage({ close: true });
    // The worker ends its connection and exits; one that does not within a second is stopped.
    const exited = new Promise<void>((r) => this.worker.once('exit', () => r()));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise<void>((r) => (timer = setTimeout(r, 1000)))]);
    clearTimeout(timer);
    await this.worker.terminate();
    this.port.close();
  }
}
