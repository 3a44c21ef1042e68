/**
 * Crash safety with real processes: a child commits turns in a loop and is killed with SIGKILL at
 * random moments, 200+ times, restarted against the same logs each time. Afterwards every turn the
 * child reported as committed is there, complete; nothing uncommitted is; the logs load without repair.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Workspace } from '../../src/store/workspace.js';
import { buildChildren } from './child-build.js';
import { itemsOf } from './fixtures/crash-shape.js';

const KILLS = 200;
const CONVERSATIONS = 4;

let build: ReturnType<typeof buildChildren>;
let dir: string;
beforeAll(() => {
  build = buildChildren();
  dir = mkdtempSync(join(tmpdir(), 'gf-crash-'));
});
afterAll(() => {
  build.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

interface Cycle {
  /** Turn the child found committed when it opened the log (`undefined`: killed before that). */
  ready: number | undefined;
  reported: number;
  tailsSetAside: number;
  killedBeforeReady: boolean;
}

/** Runs one child against `conversation` and SIGKILLs it at a random moment. */
function cycle(conversation: string): Promise<Cycle> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [build.script('crash-child'), dir, conversation], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let reported = 0;
    let tails = 0;
    let ready: number | undefined;
    let killed = false;
    const kill = (): void => {
      if (killed) return;
      killed = true;
      child.kill('SIGKILL');
    };
    // A quarter of the kills land anywhere from process start (during open, tail set-aside, lock
    // take-over); the rest while turns are being written.
    const early = Math.random() < 0.25;
    if (early) setTimeout(kill, Math.random() * 250);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        const [word, a, b] = line.split(' ');
        if (word === 'commit') reported = Number(a);
        if (word === 'ready') {
          ready = Number(a);
          tails += Number(b);
          if (!early) setTimeout(kill, Math.random() * 40);
        }
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`child exited by itself (code ${code}): ${err}`));
      else resolve({ ready, reported, tailsSetAside: tails, killedBeforeReady: ready === undefined });
    });
  });
}

describe('crash safety (real processes, SIGKILL)', () => {
  it(
    `keeps every committed turn and no uncommitted item across ${KILLS} kills`,
    { timeout: 600_000 },
    async () => {
      // Per conversation: every turn known to be committed (reported, or found by a child on open), and
      // the most that may be (a child killed after committing but before reporting adds one).
      const known = new Array<number>(CONVERSATIONS).fill(0);
      const possible = new Array<number>(CONVERSATIONS).fill(0);
      let tails = 0;
      let early = 0;
      // The conversations run side by side (their writers share the workspace database); within
      // one conversation, each child starts after the previous one was killed.
      await Promise.all(
        Array.from({ length: CONVERSATIONS }, async (_, c) => {
          for (let i = c; i < KILLS; i += CONVERSATIONS) {
            const r = await cycle(`crash-${c}`);
            if (r.ready !== undefined) {
              // What a restarted child loads: all committed turns, nothing uncommitted.
              expect(r.ready, `cycle ${i}: turns found on open`).toBeGreaterThanOrEqual(known[c]!);
              expect(r.ready, `cycle ${i}: turns found on open`).toBeLessThanOrEqual(possible[c]!);
              known[c] = Math.max(r.ready, r.reported);
              possible[c] = known[c]! + 1;
            }
            tails += r.tailsSetAside;
            if (r.killedBeforeReady) early++;
          }
        }),
      );
      const ws = Workspace.open(dir);
      try {
        let turns = 0;
        for (let c = 0; c < CONVERSATIONS; c++) {
          const h = ws.history(`crash-${c}`, 'main', { readOnly: true });
          // Only an uncommitted tail may be reported: never damage in the committed part.
          expect(h.problems.filter((p) => p.kind !== 'uncommitted')).toEqual([]);
          const items = h.items();
          const byTurn = new Map<number, number>();
          for (const item of items) byTurn.set(item.turn, (byTurn.get(item.turn) ?? 0) + 1);
          const last = h.turn;
          // Every reported commit is there; at most one more (committed, killed before it said so).
          expect(last).toBeGreaterThanOrEqual(known[c]!);
          expect(last).toBeLessThanOrEqual(possible[c]!);
          for (let n = 1; n <= last; n++)
            expect(byTurn.get(n), `conversation ${c} turn ${n}`).toBe(itemsOf(n));
          expect(byTurn.size).toBe(last);
          // The path is one unbroken chain through all turns, and every tool call has its result.
          const path = h.path();
          expect(path).toHaveLength(items.length);
          const first = path[0];
          expect(first?.kind === 'message' && first.text).toBe(`turn 1 of ${itemsOf(1)} items`);
          h.close();
          // And it opens for writing without manual repair.
          const w = ws.history(`crash-${c}`);
          expect(w.problems.filter((p) => p.kind !== 'uncommitted')).toEqual([]);
          w.close();
          turns += last;
        }
        console.log(
          `crash test: ${KILLS} kills (${early} during start-up), ${turns} committed turns kept, ${tails} torn tails set aside on reopen`,
        );
        expect(turns).toBeGreaterThan(KILLS / 2);
      } finally {
        ws.close();
      }
    },
  );
});
