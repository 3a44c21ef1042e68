/**
 * Damage handling that never launders: refused opens leave the disk as it was, `reindex` will not hide
 * lost committed turns without being told to, a corrupt database is named and rebuilt from the logs,
 * readers racing a writer see no false damage, torn tails are cut at byte offsets, stale locks are
 * recognised by process start time, and read-only commands create nothing. Real files, real SQLite,
 * real child processes.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  LogIntegrityError,
  ReindexLossError,
  Workspace,
  WorkspaceDatabaseError,
} from '../../src/store/index.js';
import { processStartTime } from '../../src/store/lock.js';
import { encodeEntries, parseLog } from '../../src/transcript/log.js';
import { HistoryLockedError } from '../../src/tree/backend.js';
import { runCli } from '../helpers/cli.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'gf-damage-'));
  dirs.push(d);
  return d;
}

const message = (text: string) => ({ kind: 'message' as const, author: 'person' as const, text });

/** A workspace with conversation `c1` of `turns` committed turns. */
function workspaceWith(turns: number, dir = tempDir()): string {
  const ws = Workspace.open(dir);
  const h = ws.history('c1');
  for (let i = 0; i < turns; i++) {
    h.append(message(`turn ${i} é`));
    h.commit();
  }
  h.close();
  ws.close();
  return dir;
}

/** Every file under `dir` with its sha256: the disk as a value, to compare before and after. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[relative(dir, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

const logOf = (dir: string) => join(dir, 'logs', 'c1', 'main.jsonl');

describe('a refused writer open changes nothing on disk', () => {
  it('a damaged log with a torn tail: refused twice, the tail still in place, no file touched', () => {
    const dir = workspaceWith(3);
    const log = logOf(dir);
    const lines = readFileSync(log, 'utf8').split('\n');
    lines[1] = lines[1]!.replace('turn 0', 'turn X'); // a committed line altered: the chain breaks
    writeFileSync(log, lines.join('\n') + '{"t":"item","torn');
    const before = snapshot(dir);
    for (let attempt = 0; attempt < 2; attempt++) {
      const ws = Workspace.open(dir);
      expect(() => ws.history('c1')).toThrow(LogIntegrityError);
      ws.close();
    }
    // Only SQLite's own companions (WAL/SHM) may come and go; the logs and the database rows stay.
    const after = snapshot(dir);
    for (const f of Object.keys(before).filter((f) => f.startsWith('logs/')))
      expect(after[f], f).toBe(before[f]);
    expect(Object.keys(after).filter((f) => f.startsWith('logs/'))).toEqual(
      Object.keys(before).filter((f) => f.startsWith('logs/')),
    );
  });
});

describe('reindex never hides lost committed turns', () => {
  it('a log cut below the committed count, one rewritten with a recomputed chain and a deleted one are all reported; nothing changes without --accept-loss', async () => {
    const dir = tempDir();
    const ws = Workspace.open(dir);
    for (const c of ['cut', 'rewritten', 'gone', 'fine']) {
      const h = ws.history(c);
      for (let i = 0; i < 3; i++) {
        h.append(message(`${c} ${i}`));
        h.commit();
      }
      h.close();
    }
    ws.close();
    // cut: drop the last turn (2 lines: item + commit).
    const cut = join(dir, 'logs', 'cut', 'main.jsonl');
    const cutLines = readFileSync(cut, 'utf8').split('\n').slice(0, -3);
    writeFileSync(cut, cutLines.join('\n') + '\n');
    // rewritten: replace the last turn by another with a valid chain, same number of lines.
    const rw = join(dir, 'logs', 'rewritten', 'main.jsonl');
    const rwText = readFileSync(rw, 'utf8');
    const kept = rwText.split('\n').slice(0, -3).join('\n') + '\n';
    const parsed = parseLog(kept);
    const last = parsed.entries.filter((e) => e.entry.t === 'item').at(-1)!.entry;
    if (last.t !== 'item') throw new Error('expected an item');
    const forged = { ...last.item, id: 'it_forged', text: 'forged', parent: last.item.id };
    writeFileSync(
      rw,
      kept +
        encodeEntries(
          [
            {
              t: 'item',
              item: forged as never,
            },
            { t: 'commit', turn: 3, time: new Date().toISOString() },
          ],
          parsed.lastHash!,
        ).text,
    );
    expect(parseLog(readFileSync(rw, 'utf8')).problems).toEqual([]); // no chain break to see
    // gone: the whole conversation directory.
    rmSync(join(dir, 'logs', 'gone'), { recursive: true });

    const dbBefore = readFileSync(join(dir, 'workspace.db'));
    const again = Workspace.open(dir);
    let err: ReindexLossError | undefined;
    try {
      again.reindex();
    } catch (e) {
      err = e as ReindexLossError;
    }
    expect(err).toBeInstanceOf(ReindexLossError);
    expect(err!.losses.map((l) => `${l.conversation}:${l.kind}`).sort()).toEqual([
      'cut:truncated',
      'gone:missing',
      'rewritten:rewritten',
    ]);
    expect(again.conversations()).toContain('gone'); // the database still remembers
    again.close();
    expect(readFileSync(join(dir, 'workspace.db')).equals(dbBefore)).toBe(true);

    const refused = await runCli(['reindex', '--workspace', dir]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('cut/main: lost: truncated');
    expect(refused.err).toContain('--accept-loss');
    const accepted = await runCli(['reindex', '--workspace', dir, '--accept-loss']);
    expect(accepted.code).toBe(0);
    expect(accepted.err).toContain('lost (accepted)');
    expect((await runCli(['reindex', '--workspace', dir])).code).toBe(0);
  });
});

describe('the workspace database', () => {
  it('corrupt: every command names the file; reindex moves it aside and rebuilds it from the logs', async () => {
    const dir = workspaceWith(2);
    for (const f of ['workspace.db-wal', 'workspace.db-shm']) rmSync(join(dir, f), { force: true });
    writeFileSync(join(dir, 'workspace.db'), 'this is not a database, it was overwritten '.repeat(200));
    const ws = Workspace.open(dir);
    expect(() => ws.history('c1')).toThrow(WorkspaceDatabaseError);
    expect(() => ws.conversations()).toThrow(new RegExp(`${join(dir, 'workspace.db')} cannot be read`));
    ws.close();
    const tree = await runCli(['tree', '--workspace', dir]);
    expect(tree.code).toBe(1);
    expect(tree.err).toContain(join(dir, 'workspace.db'));
    expect(tree.err).toContain('glyphfold reindex');
    const re = await runCli(['reindex', '--workspace', dir]);
    expect(re.code).toBe(0);
    expect(re.err).toMatch(/moved to .*workspace\.db\.corrupt-\d+ and rebuilt/);
    expect(re.out).toContain('reindexed 1 conversations, 1 histories, 2 items');
    const after = await runCli(['tree', '--workspace', dir]);
    expect(after.out).toContain('c1  main (2 items, turn 2)');
  });

  it('deleted: `tree` still lists every conversation, and creates no file', async () => {
    const dir = workspaceWith(2);
    for (const f of ['workspace.db', 'workspace.db-wal', 'workspace.db-shm'])
      rmSync(join(dir, f), { force: true });
    const before = snapshot(dir);
    const tree = await runCli(['tree', '--workspace', dir]);
    expect(tree.out).toContain('c1  main (2 items, turn 2)');
    expect(snapshot(dir)).toEqual(before);
  });
});

describe('read-only commands create nothing', () => {
  it('`tree --workspace typo` is an error, not a new workspace', async () => {
    const dir = tempDir();
    const typo = join(dir, 'typo');
    const r = await runCli(['tree', '--workspace', typo]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`no glyphfold workspace in ${typo}`);
    expect(existsSync(typo)).toBe(false);
  });
});

describe('a reader racing a writer (real processes)', () => {
  it('never reports damage that is only a commit in progress', async () => {
    const dir = tempDir();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/adversarial/fixtures/small-writer.ts', dir, 'race'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      child.stdout.setEncoding('utf8');
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (c: string) => {
          out += c;
          if (/commit 3\n/.test(out)) resolve();
        });
        child.once('exit', (code) => reject(new Error(`writer exited ${code}`)));
      });
      const damage: string[] = [];
      const READS = 300;
      for (let reads = 0; reads < READS; reads++) {
        const ws = Workspace.open(dir, { readOnly: true });
        try {
          const h = ws.history('race', 'main', { readOnly: true });
          for (const p of h.problems) if (p.kind !== 'uncommitted') damage.push(`${p.kind}: ${p.message}`);
          h.close();
        } finally {
          ws.close();
        }
        // Let the writer run between reads.
        await new Promise((r) => setImmediate(r));
      }
      expect(damage).toEqual([]);
      const commits = Number(/commit (\d+)\n$/.exec(out)?.[1]);
      console.log(`reader race: ${READS} reads while the writer committed ${commits} turns`);
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);
});

describe('torn tails are cut at byte offsets', () => {
  it('after an invalid UTF-8 byte in the committed part, the next commit survives (acceptDamage)', () => {
    const dir = workspaceWith(3);
    const log = logOf(dir);
    const bytes = readFileSync(log);
    // Bit rot inside turn 0's text ("é" → 0xFF 0xA9), then a torn unit after the last commit.
    const at = bytes.indexOf(Buffer.from('turn 0 é')) + 'turn 0 '.length;
    bytes[at] = 0xff;
    writeFileSync(log, Buffer.concat([bytes, Buffer.from('{"t":"item","item":{"text":"\u00e9\u00e9')]));
    const committedSize = bytes.length;
    const ws = Workspace.open(dir);
    const h = ws.history('c1', 'main', { acceptDamage: true });
    expect(h.problems.map((p) => p.kind)).toContain('malformed');
    expect(statSync(log).size).toBe(committedSize); // the tail went aside, exactly
    h.append(message('after the repair'));
    h.commit();
    h.close();
    const reader = ws.history('c1', 'main', { readOnly: true });
    expect(reader.path().at(-1)).toMatchObject({ text: 'after the repair' });
    // Line 2 is unreadable and breaks the chain; the item after it names a parent the log lacks.
    expect(reader.problems.map((p) => p.kind).sort()).toEqual(['chain', 'malformed', 'reference']);
    reader.close();
    ws.close();
  });
});

describe('a 0-byte log', () => {
  it('is damage: reported, refused for writing, repaired with a header under acceptDamage', () => {
    const dir = workspaceWith(1);
    const ws = Workspace.open(dir);
    writeFileSync(join(dir, 'logs', 'c1', 'empty.jsonl'), '');
    const reader = ws.history('c1', 'empty', { readOnly: true });
    expect(reader.problems).toEqual([
      { kind: 'header', line: 1, message: 'the log is empty (0 bytes): its header line is missing' },
    ]);
    reader.close();
    expect(() => ws.history('c1', 'empty')).toThrow(LogIntegrityError);
    expect(statSync(join(dir, 'logs', 'c1', 'empty.jsonl')).size).toBe(0);
    const w = ws.history('c1', 'empty', { acceptDamage: true });
    w.append(message('first'));
    w.commit();
    w.close();
    const again = ws.history('c1', 'empty', { readOnly: true });
    expect(again.problems).toEqual([]);
    expect(again.path()).toHaveLength(1);
    again.close();
    ws.close();
  });
});

describe('lock files hold pid and process start time', () => {
  it('a live pid that is not the writer (PID 1, or our own pid) does not lock the writer out', () => {
    const dir = workspaceWith(1);
    const lock = join(dir, 'logs', 'c1', 'main.lock');
    const start1 = processStartTime(1);
    const ours = processStartTime(process.pid);
    expect(ours).toMatch(/^\d+$/); // Linux: /proc/<pid>/stat field 22
    const ws = Workspace.open(dir);
    for (const text of [
      `1 ${Number(start1 ?? 0) + 12345}\n`,
      `${process.pid} ${ours}\n`,
      `${process.pid}\n`,
    ]) {
      writeFileSync(lock, text);
      const h = ws.history('c1');
      expect(readFileSync(lock, 'utf8')).toBe(`${process.pid} ${ours}\n`);
      // While it is held, this process's own second writer is refused.
      expect(() => ws.history('c1')).toThrow(HistoryLockedError);
      h.close();
      expect(existsSync(lock)).toBe(false);
    }
    // The real start time of a live process other than us: a writer.
    writeFileSync(lock, `1 ${start1}\n`);
    expect(() => ws.history('c1')).toThrow(/open for writing by process 1/);
    ws.close();
  });
});

describe('size', () => {
  it('a commit past maxLogBytes is refused before anything is written', async () => {
    const { LogFullError } = await import('../../src/store/index.js');
    const dir = tempDir();
    const ws = Workspace.open(dir, { maxLogBytes: 4096 });
    const h = ws.history('c1');
    let committed = 0;
    let err: unknown;
    for (let i = 0; i < 100 && err === undefined; i++) {
      h.append(message(`turn ${i} ${'z'.repeat(300)}`));
      try {
        h.commit();
        committed++;
      } catch (e) {
        err = e;
      }
    }
    expect(err).toBeInstanceOf(LogFullError);
    expect((err as Error).message).toMatch(/over its limit of 4096 \(maxLogBytes\); nothing was written/);
    const size = statSync(logOf(dir)).size;
    expect(size).toBeLessThanOrEqual(4096);
    h.discard();
    h.close();
    const reader = ws.history('c1', 'main', { readOnly: true });
    expect(reader.path()).toHaveLength(committed);
    expect(reader.problems).toEqual([]);
    reader.close();
    ws.close();
  });
});
