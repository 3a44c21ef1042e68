/**
 * Commits are atomic against write errors: a write that fails at any byte of a unit (a full disk) or an
 * fsync that fails is rolled back before `commit()` throws, so a retry appends cleanly and a reopened
 * log holds every committed turn and nothing else. Real files; the failure is injected through the
 * appender's `LogIo` (the system calls it makes), the workspace code runs unchanged.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeLogIo, type LogIo } from '../../src/store/logfile.js';
import { LogWriteError, Workspace } from '../../src/store/index.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'gf-wfail-'));
  dirs.push(d);
  return d;
}

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

/** A copy of the real calls whose `write` stores only `failAt` more bytes, then fails, once armed. */
function faultyIo(): LogIo & { armAt(bytes: number | undefined): void; failFsync: boolean } {
  let budget: number | undefined;
  const io = {
    ...nodeLogIo,
    failFsync: false,
    armAt(bytes: number | undefined) {
      budget = bytes;
    },
    write(fd: number, buffer: Uint8Array, offset: number, length: number): number {
      if (budget === undefined) return nodeLogIo.write(fd, buffer, offset, length);
      if (budget === 0) {
        budget = undefined;
        throw enospc();
      }
      // A short write of what still fits, as a filling disk does; the next call fails.
      const n = nodeLogIo.write(fd, buffer, offset, Math.min(length, budget));
      budget -= n;
      return n;
    },
    fsync(fd: number): void {
      if (io.failFsync) {
        io.failFsync = false;
        throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
      }
      nodeLogIo.fsync(fd);
    },
  };
  return io;
}

const message = (text: string) => ({ kind: 'message' as const, author: 'person' as const, text });

describe('a failed write is rolled back before commit() throws', () => {
  it('at every byte offset of a commit: the retry succeeds and no committed turn is lost', () => {
    const dir = tempDir();
    const io = faultyIo();
    const ws = Workspace.open(dir, { logIo: io });
    const h = ws.history('c1');
    h.append(message('first turn, committed before any failure'));
    h.commit();
    const log = ws.logPath('c1', 'main');
    // The size of one unit of this shape: commit one, measure, and use it as the span to cut.
    const before = statSync(log).size;
    h.append(message('turn 0 ' + 'é'.repeat(40)));
    h.commit();
    const unit = statSync(log).size - before;
    let failures = 0;
    let committed = 2;
    for (let cut = 0; cut < unit; cut++) {
      h.append(message(`turn ${cut + 1} ` + 'é'.repeat(40)));
      const sizeBefore = statSync(log).size;
      io.armAt(cut);
      expect(() => h.commit()).toThrow(LogWriteError);
      failures++;
      // Rolled back: the file is exactly as it was, byte for byte in length.
      expect(statSync(log).size).toBe(sizeBefore);
      // The turn is still pending; the retry writes it once.
      h.commit();
      committed++;
    }
    h.close();
    ws.close();
    expect(failures).toBeGreaterThanOrEqual(100);

    const again = Workspace.open(dir);
    const reader = again.history('c1', 'main', { readOnly: true });
    expect(reader.problems).toEqual([]);
    expect(reader.path().length).toBe(committed);
    const texts = reader.path().map((i) => (i.kind === 'message' ? i.text : ''));
    expect(new Set(texts).size).toBe(committed); // no turn twice
    reader.close();
    // And a writer opens it without setting anything aside.
    const writer = again.history('c1');
    expect(writer.problems).toEqual([]);
    writer.close();
    again.close();
    console.log(
      `write failures injected: ${failures} (unit of ${unit} bytes), turns committed: ${committed}`,
    );
  });

  it('a failed fsync is rolled back too', () => {
    const dir = tempDir();
    const io = faultyIo();
    const ws = Workspace.open(dir, { logIo: io });
    const h = ws.history('c1');
    h.append(message('one'));
    h.commit();
    const size = statSync(ws.logPath('c1', 'main')).size;
    h.append(message('two'));
    io.failFsync = true;
    const err = (() => {
      try {
        h.commit();
      } catch (e) {
        return e as LogWriteError;
      }
      throw new Error('commit did not throw');
    })();
    expect(err).toBeInstanceOf(LogWriteError);
    expect(err.rolledBack).toBe(true);
    expect(err.message).toContain('EIO');
    expect(statSync(ws.logPath('c1', 'main')).size).toBe(size);
    h.commit();
    h.close();
    const reader = ws.history('c1', 'main', { readOnly: true });
    expect(reader.path().map((i) => (i.kind === 'message' ? i.text : ''))).toEqual(['one', 'two']);
    expect(reader.problems).toEqual([]);
    reader.close();
    ws.close();
  });
});

/** A real small filesystem, when this machine lets us mount one (root in a privileged container). */
function mountTmpfs(size: string): { dir: string; unmount(): void } | string {
  const dir = tempDir();
  const mnt = join(dir, 'mnt');
  mkdirSync(mnt);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mnt], { stdio: 'pipe' });
  } catch (err) {
    return `mount -t tmpfs refused: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`;
  }
  return { dir: mnt, unmount: () => execFileSync('umount', ['-l', mnt]) };
}

const fs = mountTmpfs('256k');

describe.skipIf(typeof fs === 'string')(
  `a real filesystem that fills up (${typeof fs === 'string' ? fs : 'tmpfs 256k'})`,
  () => {
    it('commits until ENOSPC; every turn reported committed is there, the log is clean', () => {
      const { dir, unmount } = fs as Exclude<typeof fs, string>;
      const ws = Workspace.open(dir);
      let committed = 0;
      const failures: string[] = [];
      try {
        const h = ws.history('c1');
        try {
          for (let i = 0; i < 10_000 && failures.length < 20; i++) {
            h.append(message(`turn ${i} ` + 'x'.repeat(500 + ((i * 37) % 900))));
            try {
              h.commit();
              committed++;
            } catch (err) {
              failures.push(`${(err as Error).name}: ${(err as Error).message}`);
              h.discard();
            }
          }
        } finally {
          h.close();
        }
      } finally {
        ws.close();
      }
      try {
        // Only the log's own rollback may refuse a commit; it must have happened, every time cleanly.
        expect(failures.length).toBeGreaterThan(0);
        for (const f of failures) expect(f).toMatch(/^LogWriteError: .*ENOSPC.*back at its last commit/);
        const text = readFileSync(join(dir, 'logs', 'c1', 'main.jsonl'), 'utf8');
        expect(text.endsWith('\n')).toBe(true);
        const again = Workspace.open(dir);
        try {
          const reader = again.history('c1', 'main', { readOnly: true });
          expect(reader.path().length).toBe(committed);
          expect(reader.problems).toEqual([]);
          reader.close();
        } finally {
          again.close();
        }
        console.log(`tmpfs: ${committed} turns committed, ${failures.length} ENOSPC commits rolled back`);
      } finally {
        unmount();
      }
    });
  },
);
