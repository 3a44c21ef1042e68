/**
 * `src/store/logfile.ts` on its own, on real files (issue 18): creating a log, reading it in chunks of
 * every size, setting a torn tail aside (exact bytes, exact offsets, exact file name), the size limit at
 * its boundary, the error messages by content, and the descriptors each call leaves open (read from
 * /proc/self/fd). The system calls the durability rests on — fsync after each write, before each
 * rename and truncate, and of the directory after a new name — are traced with strace attached to this
 * very process (`traceSelf`), so the code under test runs here, not in a child.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createLog,
  fsyncDir,
  LogAppender,
  LogFullError,
  LogWriteError,
  nodeLogIo,
  readLog,
  setAsideTail,
  type LogIo,
} from '../../src/store/logfile.js';
import { encodeEntries, encodeHeader, parseLog, type LogHeader } from '../../src/transcript/log.js';
import { fdPath, selfTraceProblem, traceSelf, type Call } from './strace.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'gf-logfile-'));
  dirs.push(d);
  return d;
}

const HEADER: LogHeader = {
  t: 'header',
  v: 1,
  conversation: 'c1',
  agent: 'main',
  created: '2026-11-30T00:00:00.000Z',
};
const TIME = '2026-11-30T00:00:01.000Z';

/** One committed unit after the line whose hash is `prev`: a tip entry and its commit mark. */
function unit(prev: string, turn: number): { text: string; lastHash: string } {
  return encodeEntries(
    [
      { t: 'tip', tip: null },
      { t: 'commit', turn, time: TIME },
    ],
    prev,
  );
}

/** A log of `turns` committed units, created by `createLog` and appended to by `LogAppender`. */
function committedLog(dir: string, turns: number): { path: string; text: string } {
  const path = join(dir, 'logs', 'c1', 'main.jsonl');
  createLog(path, HEADER);
  const a = new LogAppender(path);
  let prev = encodeHeader(HEADER).hash;
  for (let t = 1; t <= turns; t++) {
    const u = unit(prev, t);
    a.append(u.text);
    prev = u.lastHash;
  }
  a.close();
  return { path, text: readFileSync(path, 'utf8') };
}

/** Descriptors of this process open on `path` (Linux: /proc/self/fd). */
function openOn(path: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) n++;
    } catch {
      // The descriptor readdir itself used, closed by now.
    }
  }
  return n;
}

const errorOf = (fn: () => unknown): Error => {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
};

describe('createLog', () => {
  it('writes exactly the header line, in new directories, leaving no side file and no open descriptor', () => {
    const dir = tempDir();
    const path = join(dir, 'a', 'b', 'main.jsonl');
    createLog(path, HEADER);
    expect(readFileSync(path, 'utf8')).toBe(encodeHeader(HEADER).text);
    expect(readdirSync(dirname(path))).toEqual(['main.jsonl']);
    expect(openOn(path)).toBe(0);
    expect(openOn(dirname(path))).toBe(0);
    // Over an existing log too (a rename replaces it whole).
    writeFileSync(path, 'garbage');
    createLog(path, { ...HEADER, agent: 'other' });
    expect(readFileSync(path, 'utf8')).toBe(encodeHeader({ ...HEADER, agent: 'other' }).text);
  });
});

describe('fsyncDir', () => {
  it('leaves no descriptor open on the directory', () => {
    const dir = tempDir();
    fsyncDir(dir);
    fsyncDir(dir);
    expect(openOn(dir)).toBe(0);
  });
});

describe('readLog', () => {
  it('gives the same result for every chunk size, lines cut anywhere, and counts a torn tail in bytes', () => {
    const dir = tempDir();
    const { path, text } = committedLog(dir, 3);
    const torn = '{"t":"tip","ti';
    writeFileSync(path, text + torn);
    const whole = parseLog(text + torn);
    expect(whole.committedBytes).toBe(Buffer.byteLength(text));
    expect(whole.problems.map((p) => p.message)).toEqual([
      'lines 8-8 come after the last commit mark (line 7) and were ignored: 0 complete entries (0 items) and a torn last line',
    ]);
    const size = Buffer.byteLength(text + torn);
    for (const chunk of [1, 2, 7, 64, size - 1, size, size + 1, 1 << 20]) {
      const r = readLog(path, chunk);
      expect({ ...r, commitHashes: [...r.commitHashes] }, `chunk ${chunk}`).toEqual({
        ...whole,
        commitHashes: [...whole.commitHashes],
      });
    }
    expect(openOn(path)).toBe(0);
  });

  it('a file that ends on a newline has no torn tail, whatever the chunk size', () => {
    const dir = tempDir();
    const { path, text } = committedLog(dir, 2);
    for (const chunk of [1, 3, Buffer.byteLength(text)]) {
      const r = readLog(path, chunk);
      expect(r.problems).toEqual([]);
      expect(r.committedBytes).toBe(Buffer.byteLength(text));
      expect(r.committedLines).toBe(5);
    }
  });
});

describe('setAsideTail', () => {
  it('a log that ends at its last commit: nothing set aside, nothing written, no descriptor left', () => {
    const dir = tempDir();
    const { path, text } = committedLog(dir, 2);
    expect(setAsideTail(path, readLog(path))).toBeUndefined();
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(readdirSync(dirname(path))).toEqual(['main.jsonl']);
    expect(openOn(path)).toBe(0);
  });

  for (const [what, tailAfter] of [
    ['one byte past the commit', () => '{'],
    [
      'a torn unit',
      (last: string) => encodeEntries([{ t: 'tip', tip: 'é—✓' }], last).text + '{"prev":"01","t":"com',
    ],
    ['a complete uncommitted entry', (last: string) => encodeEntries([{ t: 'tip', tip: null }], last).text],
  ] as const) {
    it(`${what}: the exact bytes go to <log>.tail-<ms>-<pid> and the log is cut at the commit`, () => {
      const dir = tempDir();
      const { path, text } = committedLog(dir, 2);
      const tail = tailAfter(parseLog(text).lastHash!);
      writeFileSync(path, text + tail);
      const parsed = readLog(path);
      expect(parsed.committedBytes).toBe(Buffer.byteLength(text));
      const before = Date.now();
      const aside = setAsideTail(path, parsed);
      const after = Date.now();
      const m = new RegExp(`^${path.replace(/[.]/g, '\\.')}\\.tail-(\\d+)-${process.pid}$`).exec(aside ?? '');
      expect(m, aside).not.toBeNull();
      expect(Number(m![1])).toBeGreaterThanOrEqual(before);
      expect(Number(m![1])).toBeLessThanOrEqual(after);
      expect(readFileSync(aside!)).toEqual(Buffer.from(tail));
      expect(readFileSync(path)).toEqual(Buffer.from(text));
      expect(readdirSync(dirname(path)).sort()).toEqual([
        'main.jsonl',
        aside!.slice(dirname(path).length + 1),
      ]);
      expect(openOn(path)).toBe(0);
      expect(openOn(aside!)).toBe(0);
      // The log continues cleanly from its last commit.
      expect(readLog(path).problems).toEqual([]);
    });
  }

  it('a log with no commit yet keeps its header; the tail after it is set aside', () => {
    const dir = tempDir();
    const path = join(dir, 'main.jsonl');
    createLog(path, HEADER);
    const header = encodeHeader(HEADER).text;
    writeFileSync(path, header + 'x'.repeat(5000));
    const aside = setAsideTail(path, readLog(path, 1000));
    expect(readFileSync(aside!, 'utf8')).toBe('x'.repeat(5000));
    expect(readFileSync(path, 'utf8')).toBe(header);
  });
});

/** Real system calls; `write`, `fsync` or `truncate` throws `fail` once armed (a full disk, an I/O error). */
function failingIo(): LogIo & { fail: Partial<Record<keyof LogIo, Error>>; writeBudget?: number } {
  const io: LogIo & { fail: Partial<Record<keyof LogIo, Error>>; writeBudget?: number } = {
    fail: {},
    write(fd, buffer, offset, length) {
      if (io.writeBudget !== undefined && io.writeBudget < length) {
        // What still fits goes to disk (a short write), then the error.
        const n = io.writeBudget > 0 ? nodeLogIo.write(fd, buffer, offset, io.writeBudget) : 0;
        io.writeBudget = undefined;
        if (n > 0) return n;
      }
      const e = io.fail.write;
      if (e) {
        delete io.fail.write;
        throw e;
      }
      return nodeLogIo.write(fd, buffer, offset, length);
    },
    fsync(fd) {
      const e = io.fail.fsync;
      if (e) {
        delete io.fail.fsync;
        throw e;
      }
      nodeLogIo.fsync(fd);
    },
    truncate(fd, length) {
      const e = io.fail.truncate;
      if (e) {
        delete io.fail.truncate;
        throw e;
      }
      nodeLogIo.truncate(fd, length);
    },
  };
  return io;
}
const sysError = (code: string) => Object.assign(new Error(`${code}: simulated, write`), { code });

describe('LogAppender', () => {
  it('refuses a missing log without creating it', () => {
    const dir = tempDir();
    const path = join(dir, 'nope.jsonl');
    const err = errorOf(() => new LogAppender(path));
    expect(err.message).toBe(`log ${path} does not exist`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('starts at the file size and counts appended bytes, not characters', () => {
    const dir = tempDir();
    const { path, text } = committedLog(dir, 1);
    const a = new LogAppender(path);
    expect(a.size).toBe(Buffer.byteLength(text));
    a.append('é✓\n');
    expect(a.size).toBe(Buffer.byteLength(text) + 6);
    a.append('');
    expect(a.size).toBe(Buffer.byteLength(text) + 6);
    a.close();
    expect(readFileSync(path, 'utf8')).toBe(text + 'é✓\n');
  });

  it('maxLogBytes: a unit ending exactly at the limit is written; one byte more is refused, nothing written', () => {
    const dir = tempDir();
    const path = join(dir, 'main.jsonl');
    createLog(path, HEADER);
    const start = Buffer.byteLength(encodeHeader(HEADER).text);
    const limit = start + 10;
    const a = new LogAppender(path, nodeLogIo, limit);
    a.append('é'.repeat(4) + '\n'); // 9 bytes: one below
    a.append('\n'); // exactly at the limit
    expect(a.size).toBe(limit);
    const err = errorOf(() => a.append('x'));
    expect(err).toBeInstanceOf(LogFullError);
    expect(err.name).toBe('LogFullError');
    expect(err.message).toBe(
      `log ${path}: this unit of 1 bytes would take the log to ${limit + 1} bytes, over its limit of ${limit} ` +
        '(maxLogBytes); nothing was written. Continue in a new conversation, or raise maxLogBytes ' +
        '(building a request reads the whole active path into memory)',
    );
    expect(a.size).toBe(limit);
    a.close();
    expect(readFileSync(path).length).toBe(limit);

    // From a fresh appender on a file already one byte under: a 2-byte unit is one over.
    const b = new LogAppender(path, nodeLogIo, limit + 1);
    expect(errorOf(() => b.append('xy')).message).toContain(
      `this unit of 2 bytes would take the log to ${limit + 2} bytes, over its limit of ${limit + 1}`,
    );
    b.append('y');
    expect(b.size).toBe(limit + 1);
    b.close();
  });

  it('close: releases the descriptor, twice is harmless, and a closed appender says so', () => {
    const dir = tempDir();
    const { path, text } = committedLog(dir, 1);
    const a = new LogAppender(path);
    expect(openOn(path)).toBe(1);
    a.close();
    expect(openOn(path)).toBe(0);
    a.close();
    expect(errorOf(() => a.append('late\n')).message).toBe(`log ${path} is closed`);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('a failed write: rolled back to the last commit, the message says what, where and how far', () => {
    const dir = tempDir();
    const { path, text } = committedLog(dir, 1);
    const io = failingIo();
    const a = new LogAppender(path, io);
    const committed = Buffer.byteLength(text);
    io.writeBudget = 3;
    const enospc = sysError('ENOSPC');
    io.fail.write = enospc;
    const err = errorOf(() => a.append('0123456789'));
    expect(err).toBeInstanceOf(LogWriteError);
    expect(err.name).toBe('LogWriteError');
    expect((err as LogWriteError).rolledBack).toBe(true);
    expect((err as LogWriteError).cause).toBe(enospc);
    expect(err.message).toBe(
      `log ${path}: writing 10 bytes failed after 3 (ENOSPC); nothing was committed and the log is back at its last commit (${committed} bytes)`,
    );
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(a.size).toBe(committed);
    // The retry appends cleanly.
    a.append('0123456789');
    expect(readFileSync(path, 'utf8')).toBe(text + '0123456789');
    a.close();
  });

  it('an error without a code is named by its message', () => {
    const dir = tempDir();
    const { path, text } = committedLog(dir, 1);
    const io = failingIo();
    const a = new LogAppender(path, io);
    io.fail.fsync = new Error('the disk went away');
    const err = errorOf(() => a.append('abc'));
    expect(err.message).toBe(
      `log ${path}: writing 3 bytes failed after 3 (the disk went away); nothing was committed and the log is back at its last commit (${Buffer.byteLength(text)} bytes)`,
    );
    expect(readFileSync(path, 'utf8')).toBe(text);
    a.close();
  });

  it('a rollback that fails too: the appender refuses further writes with the reason and the offset', () => {
    const dir = tempDir();
    const { path, text } = committedLog(dir, 1);
    const committed = Buffer.byteLength(text);
    for (const [what, arm] of [
      ['truncate', (io: ReturnType<typeof failingIo>) => (io.fail.truncate = sysError('EROFS'))],
      [
        'the fsync after it',
        (io: ReturnType<typeof failingIo>) => {
          // The first fsync (the unit's) fails, the one after the truncate too.
          let n = 0;
          const fsync = io.fsync;
          io.fsync = (fd) => {
            if (n++ < 2) throw sysError(n === 1 ? 'EIO' : 'EROFS');
            fsync(fd);
          };
        },
      ],
    ] as const) {
      writeFileSync(path, text);
      const io = failingIo();
      const a = new LogAppender(path, io);
      if (what === 'truncate') io.fail.write = sysError('EIO');
      arm(io);
      const err = errorOf(() => a.append('0123456789'));
      const expected =
        `log ${path}: a failed write could not be rolled back (EIO, then EROFS); bytes after offset ${committed} ` +
        'are not committed: reopen the history to set them aside';
      expect(err, what).toBeInstanceOf(LogWriteError);
      expect(err.message, what).toBe(expected);
      expect((err as LogWriteError).rolledBack, what).toBe(false);
      expect(((err as LogWriteError).cause as NodeJS.ErrnoException).code, what).toBe('EIO');
      // Refused from now on, with the same reason, and nothing more reaches the file.
      const size = readFileSync(path).length;
      const again = errorOf(() => a.append('more\n'));
      expect(again).not.toBeInstanceOf(LogWriteError);
      expect(again.message, what).toBe(expected);
      expect(readFileSync(path).length, what).toBe(size);
      a.close();
    }
    // A rollback error without a code is named by its message.
    writeFileSync(path, text);
    const io = failingIo();
    const a = new LogAppender(path, io);
    io.fail.write = sysError('EIO');
    io.fail.truncate = new Error('no truncation today');
    expect(errorOf(() => a.append('x')).message).toContain(
      '(EIO, then no truncation today); bytes after offset',
    );
    a.close();
  });
});

const problem = await selfTraceProblem();
if (problem) console.warn(`logfile trace skipped: ${problem}`);

/** The calls on `paths` (by the path strace prints for a descriptor, or named in the arguments). */
const on = (calls: Call[], ...paths: string[]): Call[] =>
  calls.filter((c) => paths.some((p) => fdPath(c) === p || c.args.includes(`"${p}"`)));
const ok = (c: Call): boolean => !c.result.startsWith('-1');
/** What a call acts on: its descriptor's path, else the paths it names (`a → b` for a rename). */
const target = (c: Call): string =>
  fdPath(c) ?? [...c.args.matchAll(/"([^"]*)"/g)].map((m) => m[1]).join(' → ');
/** `name target` of each call that succeeded, to compare a sequence at a glance. */
const seq = (calls: Call[]): string[] =>
  calls
    .filter(ok)
    .map(
      (c) => `${c.name === 'fdatasync' ? 'fsync' : c.name.replace(/^renameat2?$/, 'rename')} ${target(c)}`,
    );

describe.skipIf(problem !== undefined)('the system calls, traced in this process (strace -p)', () => {
  it('createLog: write(side file) → fsync → close → rename over the log → fsync(directory)', async () => {
    const dir = tempDir();
    const path = join(dir, 'logs', 'main.jsonl');
    mkdirSync(dirname(path));
    const tmp = `${path}.new-${process.pid}`;
    const { calls } = await traceSelf(() => createLog(path, HEADER));
    const mine = on(calls, tmp, path, dirname(path)).filter(ok);
    expect(seq(mine)).toEqual([
      `openat ${tmp}`,
      `write ${tmp}`,
      `fsync ${tmp}`,
      `close ${tmp}`,
      `rename ${tmp} → ${path}`,
      `openat ${dirname(path)}`,
      `fsync ${dirname(path)}`,
      `close ${dirname(path)}`,
    ]);
    expect(Number(mine[1]!.result)).toBe(Buffer.byteLength(encodeHeader(HEADER).text));
  });

  it('append: one write then fsync of the log; a failed one: ftruncate to the commit, then fsync', async () => {
    const dir = tempDir();
    const { path, text } = committedLog(dir, 1);
    const io = failingIo();
    const a = new LogAppender(path, io);
    const committed = Buffer.byteLength(text);
    const { calls } = await traceSelf(() => {
      a.append('first\n');
      io.writeBudget = 2;
      io.fail.write = sysError('ENOSPC');
      expect(() => a.append('second\n')).toThrow(LogWriteError);
      a.close();
    });
    expect(seq(on(calls, path))).toEqual([
      `write ${path}`,
      `fsync ${path}`,
      `write ${path}`,
      `ftruncate ${path}`,
      `fsync ${path}`,
      `close ${path}`,
    ]);
    const truncate = on(calls, path).find((c) => c.name === 'ftruncate')!;
    expect(truncate.args).toMatch(new RegExp(`, ${committed + 6}$`));
    expect(readFileSync(path, 'utf8')).toBe(text + 'first\n');
  });

  it('setAsideTail: read the tail only → write + fsync the side file → truncate the log → fsync it', async () => {
    const dir = tempDir();
    const { path, text } = committedLog(dir, 3);
    const tail = '{"t":"tip","tip":"torn';
    writeFileSync(path, text + tail);
    const parsed = readLog(path);
    const { calls, value: aside } = await traceSelf(() => setAsideTail(path, parsed));
    expect(aside).toBeDefined();
    const mine = on(calls, path, aside!);
    expect(seq(mine).map((s) => s.replace(aside!, 'ASIDE'))).toEqual([
      `openat ${path}`,
      `pread64 ${path}`,
      'openat ASIDE',
      'write ASIDE',
      'close ASIDE',
      'openat ASIDE',
      'fsync ASIDE',
      'close ASIDE',
      `ftruncate ${path}`,
      `fsync ${path}`,
      `close ${path}`,
    ]);
    // The read asks for the tail's bytes at the commit's offset: never the whole log.
    const read = mine.find((c) => c.name === 'pread64')!;
    const len = Buffer.byteLength(tail);
    expect(read.args).toMatch(new RegExp(`, ${len}, ${Buffer.byteLength(text)}$`));
    expect(Number(read.result)).toBe(len);
    expect(mine.find((c) => c.name === 'ftruncate')!.args).toMatch(
      new RegExp(`, ${Buffer.byteLength(text)}$`),
    );
  });

  it('fsyncDir: open, fsync and close the directory', async () => {
    const dir = tempDir();
    const { calls } = await traceSelf(() => fsyncDir(dir));
    expect(seq(on(calls, dir))).toEqual([`openat ${dir}`, `fsync ${dir}`, `close ${dir}`]);
  });
});
