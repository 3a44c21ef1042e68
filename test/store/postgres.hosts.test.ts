/**
 * PostgreSQL with several "hosts": real child processes sharing one throwaway cluster. Hosts append to
 * different conversations at once while readers look on; two race for one conversation (exactly one
 * wins, the other gets HistoryLockedError, as with folders); a host is SIGKILLed mid-commit
 * `GLYPHFOLD_PG_KILLS` times (default 200); the server itself is restarted under load.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/index.js';
import { Workspace } from '../../src/store/workspace.js';
import { HistoryLockedError } from '../../src/tree/backend.js';
import { buildChildren } from './child-build.js';
import { itemsOf } from './fixtures/crash-shape.js';
import { startCluster, type PgCluster } from './pg-cluster.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const KILLS = Number(process.env.GLYPHFOLD_PG_KILLS ?? 200);
const cluster = await startCluster();
if (typeof cluster === 'string') console.warn(cluster);

interface Host {
  child: ChildProcess;
  lines: string[];
  /** Last turn the host reported committed. */
  reported: number;
  ready: number | undefined;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  /** Resolves at the first line matching `re`. */
  waitFor(re: RegExp): Promise<string>;
}

let build: ReturnType<typeof buildChildren>;

function host(c: PgCluster, schema: string, mode: string, conversation: string, count?: number): Host {
  const child = spawn(
    process.execPath,
    [
      build.script('pg-host'),
      c.url,
      schema,
      mode,
      conversation,
      ...(count !== undefined ? [String(count)] : []),
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const h: Host = {
    child,
    lines: [],
    reported: 0,
    ready: undefined,
    exited: undefined as never,
    waitFor: undefined as never,
  };
  const waiters: { re: RegExp; resolve: (l: string) => void }[] = [];
  let out = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    out += chunk;
    let nl: number;
    while ((nl = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      h.lines.push(line);
      const [word, a] = line.split(' ');
      if (word === 'commit') h.reported = Number(a);
      if (word === 'ready') h.ready = Number(a);
      for (const w of waiters.splice(0)) {
        if (w.re.test(line)) w.resolve(line);
        else waiters.push(w);
      }
    }
  });
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  h.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
  h.waitFor = (re) =>
    new Promise((resolve, reject) => {
      const seen = h.lines.find((l) => re.test(l));
      if (seen) return resolve(seen);
      waiters.push({ re, resolve });
      void h.exited.then((e) =>
        reject(new Error(`host exited (${e.code ?? e.signal}) before ${re}: ${e.stderr}`)),
      );
    });
  return h;
}

/** Checks a history read back: turns 1..last complete, one chain, no problems. Returns the last turn. */
async function checkWhole(store: PostgresStore, conversation: string): Promise<number> {
  const h = await store.history(conversation, 'main', { readOnly: true });
  try {
    expect(h.problems).toEqual([]);
    const byTurn = new Map<number, number>();
    for (const item of h.items()) byTurn.set(item.turn, (byTurn.get(item.turn) ?? 0) + 1);
    for (let n = 1; n <= h.turn; n++) expect(byTurn.get(n), `${conversation} turn ${n}`).toBe(itemsOf(n));
    expect(byTurn.size).toBe(h.turn);
    expect(h.path()).toHaveLength(h.items().length);
    return h.turn;
  } finally {
    await h.close();
  }
}

describe.skipIf(typeof cluster === 'string')('PostgreSQL store with several hosts (real processes)', () => {
  const c = cluster as PgCluster;
  let store: PostgresStore;
  beforeAll(() => {
    build = buildChildren();
    store = new PostgresStore({ connectionString: c.url, schema: 'hosts' });
  });
  afterAll(async () => {
    await store?.close();
    build?.cleanup();
    c.stop();
  });

  it(
    'lets hosts append to different conversations at once; readers see only whole turns',
    { timeout: 120_000 },
    async () => {
      const TURNS = 25;
      const hosts = Array.from({ length: 4 }, (_, i) => host(c, 'hosts', 'write', `multi-${i}`, TURNS));
      let reads = 0;
      let done = false;
      const all = Promise.all(hosts.map((h) => h.exited)).finally(() => (done = true));
      // A reader on another connection while the writers commit: every snapshot holds whole turns.
      while (!done) {
        for (let i = 0; i < hosts.length; i++) {
          if ((await store.conversation(`multi-${i}`)) === undefined) continue;
          await checkWhole(store, `multi-${i}`);
          reads++;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      for (const e of await all) expect(e, e.stderr).toMatchObject({ code: 0 });
      for (let i = 0; i < hosts.length; i++) expect(await checkWhole(store, `multi-${i}`)).toBe(TURNS);
      console.log(`postgres hosts: 4 hosts x ${TURNS} turns, ${reads} snapshot reads while they wrote`);
    },
  );

  it(
    'gives one conversation to exactly one of two racing hosts; the other gets HistoryLockedError',
    { timeout: 60_000 },
    async () => {
      for (let round = 0; round < 5; round++) {
        const a = host(c, 'hosts', 'hold', `race-${round}`);
        const b = host(c, 'hosts', 'hold', `race-${round}`);
        const [la, lb] = await Promise.all([a.waitFor(/^(open|locked)/), b.waitFor(/^(open|locked)/)]);
        const outcomes = [la, lb].map((l) => l.split(' ')[0]).sort();
        expect(outcomes, `${la} / ${lb}`).toEqual(['locked', 'open']);
        const loser = la.startsWith('locked') ? la : lb;
        expect(loser).toMatch(
          /^locked HistoryLockedError conversation race-\d agent main is open for writing by another session \(PostgreSQL backend \d+, glyphfold pid \d+/,
        );
        a.child.stdin!.end();
        b.child.stdin!.end();
        await Promise.all([a.exited, b.exited]);
      }
      // The same error type as the folder store's.
      const dir = mkdtempSync(join(tmpdir(), 'gf-pg-race-'));
      try {
        const ws = Workspace.open(dir);
        const held = ws.history('x');
        expect(() => ws.history('x')).toThrow(HistoryLockedError);
        held.close();
        ws.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      // And in process: the dead holder's lock goes with its connection.
      const h = await store.history('race-0');
      await h.close();
    },
  );

  it(
    `keeps every committed turn and no half turn across ${KILLS} SIGKILLs mid-commit`,
    { timeout: 1_200_000 },
    async () => {
      const CONVERSATIONS = 4;
      const known = new Array<number>(CONVERSATIONS).fill(0);
      const possible = new Array<number>(CONVERSATIONS).fill(0);
      let early = 0;
      let kills = 0;
      await Promise.all(
        Array.from({ length: CONVERSATIONS }, async (_, k) => {
          for (let i = k; i < KILLS; i += CONVERSATIONS) {
            const h = host(c, 'hosts', 'crash', `crash-${k}`);
            const earlyKill = Math.random() < 0.25;
            let killed = false;
            const kill = (): void => {
              if (killed) return;
              killed = true;
              h.child.kill('SIGKILL');
            };
            if (earlyKill) setTimeout(kill, Math.random() * 300);
            else
              void h.waitFor(/^ready/).then(
                () => setTimeout(kill, Math.random() * 200),
                () => {},
              );
            const e = await h.exited;
            expect(e.signal, `host exited by itself (${e.code}): ${e.stderr}`).toBe('SIGKILL');
            kills++;
            if (h.ready === undefined) early++;
            else {
              expect(h.ready, `cycle ${i}: turns found on open`).toBeGreaterThanOrEqual(known[k]!);
              expect(h.ready, `cycle ${i}: turns found on open`).toBeLessThanOrEqual(possible[k]!);
              known[k] = Math.max(h.ready, h.reported);
              possible[k] = known[k]! + 1;
            }
          }
        }),
      );
      let turns = 0;
      for (let k = 0; k < CONVERSATIONS; k++) {
        const last = await checkWhole(store, `crash-${k}`);
        expect(last).toBeGreaterThanOrEqual(known[k]!);
        expect(last).toBeLessThanOrEqual(possible[k]!);
        turns += last;
        // Opens for writing at once: the killed hosts' locks went with their connections.
        const w = await store.history(`crash-${k}`);
        await w.close();
      }
      console.log(
        `postgres crash test: ${kills} SIGKILLs (${early} during start-up), ${turns} committed turns kept, 0 half turns`,
      );
      expect(kills).toBe(KILLS);
      expect(turns).toBeGreaterThan(KILLS / 2); // the kills landed while turns were being committed
    },
  );

  it(
    'survives a server restart under load: hosts reconnect, nothing committed is lost',
    { timeout: 180_000 },
    async () => {
      const TURNS = 40;
      const hosts = Array.from({ length: 4 }, (_, i) => host(c, 'hosts', 'write', `restart-${i}`, TURNS));
      await Promise.all(hosts.map((h) => h.waitFor(/^commit 5$/)));
      c.restart(); // fast shutdown: every backend is terminated mid-whatever, then the server comes back
      const midway = hosts.map((h) => h.reported);
      await Promise.all(hosts.map((h) => h.waitFor(/^commit 15$/)));
      c.crash(); // immediate shutdown this time (no checkpoint): the restart replays the WAL
      c.start();
      const exits = await Promise.all(hosts.map((h) => h.exited));
      for (const e of exits) expect(e, e.stderr).toMatchObject({ code: 0 });
      for (let i = 0; i < hosts.length; i++) {
        expect(hosts[i]!.reported).toBe(TURNS);
        expect(await checkWhole(store, `restart-${i}`)).toBe(TURNS);
      }
      console.log(
        `postgres restart test: 4 hosts x ${TURNS} turns across a fast restart (at turns ${midway.join(',')}) and an immediate shutdown`,
      );
    },
  );
});
