/**
 * The lock file's rules one by one (issue 18), on real files: a live holder (this process, or pid 1
 * which always runs), a dead pid, an empty or garbage file fresh and old (the 2-second window a new
 * holder needs between creating the file and writing its pid), release twice, release after removal.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, processStartTime } from '../../src/store/lock.js';
import { HistoryLockedError } from '../../src/tree/backend.js';

let dir: string;
let lock: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gf-lock-'));
  lock = join(dir, 'main.lock');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A pid that surely does not run: a child that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(r.stdout);
}

/** Sets a file's mtime `ms` milliseconds into the past. */
function age(path: string, ms: number): void {
  const t = (Date.now() - ms) / 1000;
  utimesSync(path, t, t);
}

/** What this process writes into a lock file: its pid and, on Linux, its start time (lock.ts). */
const start = processStartTime(process.pid);
const mine = start === undefined ? `${process.pid}\n` : `${process.pid} ${start}\n`;

describe('acquireLock', () => {
  it('writes this pid and a newline, and removes the file on release (twice is harmless)', () => {
    const release = acquireLock(lock, 'c/main');
    expect(readFileSync(lock, 'utf8')).toBe(mine);
    release();
    expect(existsSync(lock)).toBe(false);
    release();
    // A second release must not remove the lock of whoever took it since.
    const next = acquireLock(lock, 'c/main');
    release();
    expect(readFileSync(lock, 'utf8')).toBe(mine);
    next();
    // Released after someone removed it: no error either.
    const again = acquireLock(lock, 'c/main');
    rmSync(lock);
    expect(() => again()).not.toThrow();
  });

  it('refuses while a live process holds it, naming the pid and the file', () => {
    const release = acquireLock(lock, 'c/main');
    expect(() => acquireLock(lock, 'c/main')).toThrow(HistoryLockedError);
    expect(() => acquireLock(lock, 'c/main')).toThrow(
      `c/main is open for writing by process ${process.pid} (lock file ${lock})`,
    );
    release();
    // pid 1 always runs; the error says so even if it is not ours (EPERM counts as alive).
    writeFileSync(lock, '1\n');
    expect(() => acquireLock(lock, 'c/main')).toThrow(
      `c/main is open for writing by process 1 (lock file ${lock})`,
    );
  });

  it('takes over the lock of a dead pid', () => {
    const pid = deadPid();
    writeFileSync(lock, `${pid}\n`);
    const release = acquireLock(lock, 'c/main');
    expect(readFileSync(lock, 'utf8')).toBe(mine);
    release();
  });

  it('an empty or garbage file: refused while fresh (< 2 s), taken over once old', () => {
    for (const content of ['', 'garbage', '0\n', '-5\n']) {
      writeFileSync(lock, content);
      age(lock, 1000);
      expect(() => acquireLock(lock, 'c/main'), JSON.stringify(content)).toThrow(
        `c/main is being opened for writing by another process (lock file ${lock})`,
      );
      age(lock, 2100);
      const release = acquireLock(lock, 'c/main');
      expect(readFileSync(lock, 'utf8')).toBe(mine);
      release();
    }
  });

  it('a lock in a directory that does not exist is an error from the file system, not a lock error', () => {
    expect(() => acquireLock(join(dir, 'missing', 'x.lock'), 'c/main')).toThrow(/ENOENT/);
  });
});

describe('whose lock it is', () => {
  it('a lock with this pid that this process does not hold is left over from a past life: taken over', () => {
    // Written by an earlier process that had our pid (or by us, then released and rewritten by hand).
    writeFileSync(lock, mine);
    const release = acquireLock(lock, 'c/main');
    release();
    // Released locks are forgotten: the same content written again is a leftover again.
    writeFileSync(lock, mine);
    acquireLock(lock, 'c/main')();
  });

  it('a lock this process holds is refused through another path to the same file', () => {
    const other = join(dir, 'via');
    symlinkSync(dir, other);
    const release = acquireLock(lock, 'c/main');
    expect(() => acquireLock(join(other, 'main.lock'), 'c/main')).toThrow(
      `c/main is open for writing by process ${process.pid}`,
    );
    release();
    acquireLock(join(other, 'main.lock'), 'c/main')();
  });

  it('a live pid with another start time is a reused pid: taken over; with its own start time: refused', () => {
    const init = processStartTime(1);
    if (init === undefined) return; // no /proc: the start time is not written and not checked
    writeFileSync(lock, `1 ${Number(init) + 1}\n`);
    const release = acquireLock(lock, 'c/main');
    expect(readFileSync(lock, 'utf8')).toBe(mine);
    release();
    writeFileSync(lock, `1 ${init}\n`);
    expect(() => acquireLock(lock, 'c/main')).toThrow(`c/main is open for writing by process 1`);
  });

  it('leaves no file of its own beside the lock, whether it takes, is refused or takes over', () => {
    const release = acquireLock(lock, 'c/main');
    expect(readdirSync(dir)).toEqual(['main.lock']);
    expect(() => acquireLock(lock, 'c/main')).toThrow(HistoryLockedError);
    expect(readdirSync(dir)).toEqual(['main.lock']);
    release();
    expect(readdirSync(dir)).toEqual([]);
    writeFileSync(lock, `${deadPid()}\n`);
    acquireLock(lock, 'c/main')();
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('what is not a lock', () => {
  it('a name that exists but cannot be read (a dangling link): an error once the tries are spent', () => {
    symlinkSync(join(dir, 'nowhere'), lock);
    expect(() => acquireLock(lock, 'c/main')).toThrow(
      `c/main: could not take the lock ${lock} (it keeps changing hands)`,
    );
    expect(readdirSync(dir)).toEqual(['main.lock']); // nothing of ours left beside it
  });

  it('a directory in its place: the file system error, on taking and on releasing', () => {
    mkdirSync(lock);
    expect(() => acquireLock(lock, 'c/main')).toThrow(/EISDIR/);
    rmSync(lock, { recursive: true });
    const release = acquireLock(lock, 'c/main');
    rmSync(lock);
    mkdirSync(lock);
    // Only a lock already gone is fine to release; anything else that stops the unlink is reported.
    expect(() => release()).toThrow(/EISDIR|EPERM/);
  });
});

describe('processStartTime', () => {
  it('is undefined for a pid that does not run', () => {
    expect(processStartTime(deadPid())).toBeUndefined();
  });

  it('counts fields after the last parenthesis: a command name with spaces and parentheses', async () => {
    if (processStartTime(process.pid) === undefined) return; // no /proc
    // The command name (field 2) is the executable's file name: a link to node named like that.
    const exe = join(dir, 'a) b (c');
    symlinkSync(process.execPath, exe);
    const child = spawn(exe, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      const pid = child.pid!;
      expect(readFileSync(`/proc/${pid}/comm`, 'utf8')).toBe('a) b (c\n');
      const childStart = processStartTime(pid);
      // Started after this process (clock ticks since boot); a miscounted field would be a small
      // number such as the thread count, or not a number.
      expect(childStart).toMatch(/^\d+$/);
      expect(Number(childStart)).toBeGreaterThanOrEqual(Number(processStartTime(process.pid)));
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
  });
});
