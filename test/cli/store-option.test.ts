/**
 * `--store URL` on every store command, as a user runs them: the built CLI (dist/cli/main.js, built by
 * `npm test` through pretest) in child processes against a throwaway PostgreSQL cluster, beside a folder
 * workspace. Each child must exit by itself (its connections closed); a hang fails the test.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/index.js';
import { startCluster, type PgCluster } from '../store/pg-cluster.js';
import { BACKED_UP, writeFileHistorySession } from '../helpers/file-history-session.js';

const repo = join(import.meta.dirname, '..', '..');
const bin = join(repo, 'dist', 'cli', 'main.js');
const fixtures = join(repo, 'test', 'fixtures', 'transcripts');
const cluster = await startCluster();
if (typeof cluster === 'string') console.warn(cluster);

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** The CLI in a child process; resolves when it has exited by itself. */
function cli(args: string[], o: { cwd: string; env?: Record<string, string>; node?: string[] }): Run {
  const env = { ...process.env, ...o.env };
  if (!o.env?.GLYPHFOLD_STORE) delete env.GLYPHFOLD_STORE;
  const r = spawnSync(process.execPath, [...(o.node ?? []), bin, ...args], {
    cwd: o.cwd,
    env,
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

// Each case spawns up to 20 CLI processes: generous on a loaded machine (a hung child still fails).
describe.skipIf(typeof cluster === 'string')('glyphfold … --store postgres://', { timeout: 180_000 }, () => {
  const c = cluster as PgCluster;
  let dir: string;
  let admin: pg.Client;
  let n = 0;
  /** A fresh store (its own schema) in the cluster's database. */
  const db = (): string => `${c.url}?schema=cli${n++}`;
  const run = (...args: string[]): Run => cli(args, { cwd: dir });
  const ok = (r: Run): Run => {
    expect(r.code, r.err).toBe(0);
    return r;
  };
  const schemaExists = async (schema: string): Promise<boolean> =>
    (await admin.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rows.length > 0;

  beforeAll(async () => {
    expect(existsSync(bin), 'dist/cli/main.js is missing: run `npm run build:ts`').toBe(true);
    dir = mkdtempSync(join(tmpdir(), 'gf-store-cli-'));
    admin = new pg.Client(c.url);
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    c.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports a file, lists and draws it with tree, and prints the same path as a folder does', async () => {
    const url = db();
    const file = join(fixtures, 'claude-code.jsonl');
    const imported = ok(run('import', file, '--store', url, '--conversation', 'cc'));
    expect(imported.out).toMatch(/^imported \d+ items \(claude-code\) into conversation cc agent main/);
    ok(run('import', file, '--workspace', 'ws-tree', '--conversation', 'cc'));
    // The database's ledger (cli_imports) knows the file: the same import again writes nothing.
    const again = ok(run('import', file, '--store', url, '--conversation', 'cc'));
    expect(again.out).toMatch(/^unchanged: .* conversation cc agent main; nothing written$/m);
    // The same content from another path is another source, and its conversation id is taken.
    const copy = join(dir, 'copy.jsonl');
    copyFileSync(file, copy);
    const clash = run('import', copy, '--store', url, '--conversation', 'cc');
    expect(clash.code).toBe(1);
    expect(clash.err).toMatch(/already exists in postgres:\/\//);

    const list = ok(run('tree', '--store', url));
    expect(list.out).toBe(ok(run('tree', '--workspace', 'ws-tree')).out);
    expect(list.out).toMatch(/^cc {2}main \(\d+ items, turn \d+\)/);
    const drawn = ok(run('tree', '--store', url, 'cc', '--agent', 'main'));
    expect(drawn.out).toBe(ok(run('tree', '--workspace', 'ws-tree', 'cc', '--agent', 'main')).out);
    expect(drawn.out).toContain('<- tip');
    const jsonl = ok(run('tree', '--store', url, 'cc', '--agent', 'main', '--jsonl'));
    expect(jsonl.out).toBe(ok(run('tree', '--workspace', 'ws-tree', 'cc', '--agent', 'main', '--jsonl')).out);
    expect(jsonl.out.split('\n').length).toBeGreaterThan(3);
  });

  it('moves a whole history byte for byte with --format log: folder → PostgreSQL → folder, and PostgreSQL → folder → PostgreSQL', async () => {
    const a = db();
    const b = db();
    // A history with branches (an edited prompt, a rewind), written in a folder.
    ok(run('import', join(fixtures, 'claude-code.jsonl'), '--workspace', 'lg1', '--conversation', 'c1'));
    const original = readFileSync(join(dir, 'lg1', 'logs', 'c1', 'main.jsonl'));
    ok(run('export', '--workspace', 'lg1', 'c1', '--format', 'log', '--out', 'c1.log'));
    expect(readFileSync(join(dir, 'c1.log')).equals(original)).toBe(true);
    const stored = ok(run('import', 'c1.log', '--store', a));
    expect(stored.out).toMatch(
      /^stored the log of conversation c1 agent main: \d+ lines, \d+ items, unchanged\n$/,
    );
    const fromDb = ok(run('export', '--store', a, 'c1', '--format', 'log')).out;
    expect(Buffer.from(fromDb).equals(original)).toBe(true);
    writeFileSync(join(dir, 'c1-db.log'), fromDb);
    ok(run('import', 'c1-db.log', '--workspace', 'lg1b'));
    expect(readFileSync(join(dir, 'lg1b', 'logs', 'c1', 'main.jsonl')).equals(original)).toBe(true);
    // The trees drawn from both stores agree (branches and the tip came along).
    expect(ok(run('tree', '--store', a, 'c1')).out).toBe(
      ok(run('tree', '--workspace', 'lg1', 'c1', '--agent', 'main')).out,
    );
    expect(ok(run('tree', '--workspace', 'lg1b', 'c1')).out).toBe(ok(run('tree', '--store', a, 'c1')).out);
    // A second import of the same history is refused, in either store.
    expect(run('import', 'c1.log', '--store', a).code).toBe(1);
    expect(run('import', 'c1.log', '--workspace', 'lg1b').err).toMatch(/already exists/);

    // Starting in the database: a history written there, moved to a folder and back into another schema.
    ok(run('import', join(fixtures, 'codex.jsonl'), '--store', b, '--conversation', 'c2'));
    const p2 = ok(run('export', '--store', b, 'c2', '--format', 'log', '--out', 'c2.log'));
    expect(p2.err).toMatch(/wrote the log of c2 agent main/);
    const log2 = readFileSync(join(dir, 'c2.log'));
    ok(run('import', 'c2.log', '--workspace', 'lg2'));
    expect(readFileSync(join(dir, 'lg2', 'logs', 'c2', 'main.jsonl')).equals(log2)).toBe(true);
    ok(run('export', '--workspace', 'lg2', 'c2', '--format', 'log', '--out', 'c2-dir.log'));
    const c = db();
    ok(run('import', 'c2-dir.log', '--store', c));
    expect(Buffer.from(ok(run('export', '--store', c, 'c2', '--format', 'log')).out).equals(log2)).toBe(true);

    // An uncommitted tail (a writer killed mid-commit) is not part of the record: not exported.
    appendFileSync(join(dir, 'lg2', 'logs', 'c2', 'main.jsonl'), '{"t":"item","item":{"id":"half');
    const tailed = ok(run('export', '--workspace', 'lg2', 'c2', '--format', 'log')).out;
    expect(Buffer.from(tailed).equals(log2)).toBe(true);

    // A damaged log is refused and nothing is stored; a log cannot be renamed.
    const lines = log2.toString('utf8').split('\n');
    [lines[1], lines[2]] = [lines[2]!, lines[1]!]; // two lines swapped: the hash chain breaks
    writeFileSync(join(dir, 'bad.log'), lines.join('\n'));
    const bad = run('import', 'bad.log', '--store', db());
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/damaged; nothing was stored/);
    const renamed = run('import', 'c2.log', '--store', db(), '--conversation', 'other');
    expect(renamed.code).toBe(2);
    expect(renamed.err).toMatch(/the log names its own conversation \(c2\)/);
  });

  it("round-trips one path with --format glyphfold: the same items, byte for byte, once ids are the importer's", async () => {
    const a = db();
    // The importer gives items ids along the file (imp-000001, …): a path exported from an import of
    // a branching session is renumbered once; every byte else is kept, and from then on all of it.
    ok(run('import', join(fixtures, 'claude-code.jsonl'), '--workspace', 'rt1', '--conversation', 'c1'));
    ok(run('export', '--workspace', 'rt1', 'c1', '--out', 'f0.jsonl'));
    ok(run('import', 'f0.jsonl', '--workspace', 'rt0', '--conversation', 'c1'));
    ok(run('export', '--workspace', 'rt0', 'c1', '--out', 'f1.jsonl'));
    const f1 = readFileSync(join(dir, 'f1.jsonl'));
    const strip = (t: string) => t.split('\n').map((l) => l.replace(/"(id|parent)":("imp-\d+"|null),/g, ''));
    expect(strip(f1.toString())).toEqual(strip(readFileSync(join(dir, 'f0.jsonl'), 'utf8')));
    // folder → PostgreSQL → folder
    ok(run('import', 'f1.jsonl', '--store', a, '--conversation', 'c1'));
    ok(run('export', '--store', a, 'c1', '--out', 'p1.jsonl'));
    expect(readFileSync(join(dir, 'p1.jsonl')).equals(f1)).toBe(true);
    ok(run('import', 'p1.jsonl', '--workspace', 'rt1b', '--conversation', 'c1'));
    ok(run('export', '--workspace', 'rt1b', 'c1', '--out', 'f1b.jsonl'));
    expect(readFileSync(join(dir, 'f1b.jsonl')).equals(f1)).toBe(true);
    // PostgreSQL → folder → PostgreSQL, through stdout
    const p2 = ok(run('export', '--store', a, 'c1')).out;
    writeFileSync(join(dir, 'p2.jsonl'), p2);
    ok(run('import', 'p2.jsonl', '--workspace', 'rt2', '--conversation', 'c2'));
    const f2 = ok(run('export', '--workspace', 'rt2', 'c2')).out;
    expect(Buffer.from(f2).equals(f1)).toBe(true);
    writeFileSync(join(dir, 'f2.jsonl'), f2);
    ok(run('import', 'f2.jsonl', '--store', a, '--conversation', 'c2'));
    expect(Buffer.from(ok(run('export', '--store', a, 'c2')).out).equals(f1)).toBe(true);
    // Any branch exports, not only the tip (here: the path to the first item).
    const firstLine = f1.toString().split('\n')[0]!;
    const first = (JSON.parse(firstLine) as { id: string }).id;
    expect(ok(run('export', '--store', a, 'c1', '--at', first)).out).toBe(firstLine + '\n');
  });

  it('view and compact read a conversation from the database as from a folder', async () => {
    const url = db();
    const file = join(fixtures, 'anthropic.json');
    ok(run('import', file, '--store', url, '--conversation', 'v'));
    ok(run('import', file, '--workspace', 'ws-view', '--conversation', 'v'));
    const fromDb = ok(run('view', '--store', url, 'v', '--provider', 'anthropic'));
    const fromDir = ok(run('view', '--workspace', 'ws-view', 'v', '--provider', 'anthropic'));
    expect(fromDb.out).toBe(fromDir.out);
    expect(JSON.parse(fromDb.out)).toHaveProperty('messages');
    // The most recent conversation by default.
    expect(ok(run('view', '--store', url, '--screen')).out).toBe(
      ok(run('view', '--workspace', 'ws-view', '--screen')).out,
    );
    const opts = ['--model', 'claude-sonnet-4-5', '--budget', '2000', '--force', '--json'];
    const cDb = run('compact', '--store', url, 'v', '--out', 'out-db', ...opts);
    const cDir = run('compact', '--workspace', 'ws-view', 'v', '--out', 'out-dir', ...opts);
    expect(cDb.code, cDb.err).toBe(cDir.code);
    expect(JSON.parse(cDb.out).format).toBe('postgres');
    expect(readFileSync(join(dir, 'out-db', 'request.json'), 'utf8')).toBe(
      readFileSync(join(dir, 'out-dir', 'request.json'), 'utf8'),
    );
  });

  it('imports a folder: subagents, branches and checkpoint files; the ledger is a table, so a re-run skips', async () => {
    const url = db();
    const schema = `cli${n - 1}`;
    const share = join(fixtures, 'real', 'claude-code', 'session-share');
    const src = join(dir, 'share');
    cpSync(share, src, { recursive: true });
    // A session whose checkpoint names a file backup (Claude Code's file-history beside projects/).
    const root = join(dir, 'fh');
    const { project } = writeFileHistorySession(root);

    const dry = ok(run('import', src, '--store', url, '--dry-run'));
    expect(dry.out).toMatch(/^dry run: 2 sessions in .* -> store postgres:\/\/.*: 2 imported/);
    expect(await schemaExists(schema)).toBe(false); // a dry run creates nothing

    const first = ok(run('import', src, '--store', url));
    expect(first.out).toMatch(/2 sessions in .* -> store .*: 2 imported, 0 extended, 0 unchanged, 0 failed/);
    const { rows } = await admin.query<{ source: string; conversation: string }>(
      `SELECT source, conversation FROM ${schema}.cli_imports ORDER BY source`,
    );
    expect(rows.map((r) => r.conversation)).toEqual([
      '0ccf1a04-1b4c-43b6-8aa5-79e41db43a68',
      '4b2030ed-5563-49ea-b703-6a002f2d3cc8',
    ]);
    const second = ok(run('import', src, '--store', url));
    expect(second.out).toMatch(/0 imported, 0 extended, 2 unchanged, 0 failed/);
    // The same folder into a workspace gives the same trees, subagents included.
    ok(run('import', src, '--workspace', 'ws-folder'));
    expect(ok(run('tree', '--store', url)).out).toBe(ok(run('tree', '--workspace', 'ws-folder')).out);
    expect(ok(run('tree', '--store', url)).out).toMatch(/agent-\w+ \(\d+ items.*main \(52 items/);

    // The checkpoint's file went into the database's blobs; restore puts it back.
    ok(run('import', project, '--store', url));
    const store = new PostgresStore({ connectionString: c.url, schema });
    try {
      const h = await store.history('sess-1');
      const [cp] = h.checkpoints();
      expect(cp!.label).toBe('cc-u2');
      mkdirSync(join(root, 'app', 'src'), { recursive: true });
      writeFileSync(join(root, 'app', 'src', 'x.ts'), 'changed\n');
      await h.restore('cc-u2', { code: true });
      expect(readFileSync(join(root, 'app', 'src', 'x.ts'), 'utf8')).toBe(BACKED_UP);
      await h.close();
    } finally {
      await store.close();
    }
  });

  it('inspect --store serves the tree over the database, writes under the lock and releases it, and exits on SIGTERM', async () => {
    const url = db();
    const schema = `cli${n - 1}`;
    ok(run('import', join(fixtures, 'claude-code.jsonl'), '--store', url, '--conversation', 'cc'));
    const child = spawn(process.execPath, [bin, 'inspect', '--store', url, '--port', '0'], {
      cwd: dir,
      env: { ...process.env, GLYPHFOLD_STORE: '' },
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const base = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /inspector on (http:\/\/[^\s]+?)\/?\n/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('close', () => reject(new Error(`inspect exited: ${err}`)));
    });
    const store = new PostgresStore({ connectionString: c.url, schema });
    try {
      const list = (await (await fetch(`${base}/api/conversations`)).json()) as {
        conversations: { id: string; agents: { agent: string; items: number }[] }[];
      };
      expect(list.conversations.map((x) => x.id)).toEqual(['cc']);
      const main = list.conversations[0]!.agents.find((a) => a.agent === 'main')!;
      expect(main.items).toBeGreaterThan(3);
      const tree = (await (await fetch(`${base}/api/c/cc/main/tree`)).json()) as {
        tip: string;
        rows: { id: string }[];
      };
      expect(tree.rows).toHaveLength(main.items);
      const page = await (await fetch(`${base}/`)).text();
      const token = /name="gf-token" content="([^"]+)"/.exec(page)![1]!;
      const other = tree.rows.find((r) => r.id !== tree.tip)!.id;
      const post = (action: string, body: object) =>
        fetch(`${base}/api/c/cc/main/${action}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-glyphfold-token': token },
          body: JSON.stringify(body),
        });
      const moved = await post('branch', { at: other });
      expect(moved.status, await moved.clone().text()).toBe(200);
      expect(((await moved.json()) as { tip: string }).tip).toBe(other);
      // The inspector released the writer lock: this process can write, and then holds it.
      const h = await store.history('cc');
      expect(h.tip).toBe(other);
      const locked = await post('branch', { at: tree.tip });
      expect(locked.status).toBe(409);
      await h.close();
      const back = await post('branch', { at: tree.tip });
      expect(back.status).toBe(200);
      const tree2 = (await (await fetch(`${base}/api/c/cc/main/tree`)).json()) as { tip: string };
      expect(tree2.tip).toBe(tree.tip);
    } finally {
      await store.close();
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(err).toContain('glyphfold inspect: stopped');
  });

  it('serve --store serves the inspector beside the render endpoint; --read-only refuses writes; both exit on SIGTERM', async () => {
    const url = db();
    ok(run('import', join(fixtures, 'anthropic.json'), '--store', url, '--conversation', 's'));
    const start = (args: string[]) => {
      const child = spawn(process.execPath, [bin, ...args, '--store', url, '--port', '0'], {
        cwd: dir,
        env: { ...process.env, GLYPHFOLD_STORE: '' },
      });
      let out = '';
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      const ready = new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /inspector on (http:\/\/[^\s/]+)/.exec(out);
          if (m && (args[0] !== 'serve' || out.includes('listening on'))) resolve(m[1]!);
        });
        child.once('close', () => reject(new Error(`${args[0]} exited: ${err}`)));
      });
      return { child, exited, ready, err: () => err };
    };
    const serve = start(['serve']);
    const ro = start(['inspect', '--read-only']);
    try {
      const base = await serve.ready;
      const list = (await (await fetch(`${base}/api/conversations`)).json()) as {
        conversations: { id: string }[];
      };
      expect(list.conversations.map((x) => x.id)).toEqual(['s']);
      expect((await fetch(`${base}/v1/health`)).status).toBe(200);
      const roBase = await ro.ready;
      const page = await (await fetch(`${roBase}/`)).text();
      const token = /name="gf-token" content="([^"]+)"/.exec(page)![1]!;
      const refused = await fetch(`${roBase}/api/c/s/main/branch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-glyphfold-token': token },
        body: JSON.stringify({ at: null }),
      });
      expect(refused.status).toBe(403);
    } finally {
      serve.child.kill('SIGTERM');
      ro.child.kill('SIGTERM');
    }
    expect(await serve.exited).toBe(0);
    expect(await ro.exited).toBe(0);
    expect(serve.err()).toContain('glyphfold serve: stopped');
  });

  it('reads the store from GLYPHFOLD_STORE when no option names one', async () => {
    const url = db();
    ok(run('import', join(fixtures, 'openai-chat.json'), '--store', url, '--conversation', 'env'));
    const r = cli(['tree'], { cwd: dir, env: { GLYPHFOLD_STORE: url } });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^env {2}main \(\d+ items/);
    // An option wins over the variable.
    ok(run('import', join(fixtures, 'openai-chat.json'), '--workspace', 'ws-env', '--conversation', 'dir'));
    const o = cli(['tree', '--workspace', 'ws-env'], { cwd: dir, env: { GLYPHFOLD_STORE: url } });
    expect(o.out).toMatch(/^dir {2}main/);
  });

  it('names what was wrong: both options, neither, an unknown scheme, an unreachable server, a missing store — never the password', async () => {
    const both = run('tree', '--workspace', 'x', '--store', c.url);
    expect(both.code).toBe(2);
    expect(both.err).toContain('--workspace and --store both name the store; give one, not both');
    const neither = run('export', 'c1');
    expect(neither.code).toBe(2);
    expect(neither.err).toContain('--workspace DIR is required (or --store URL, or GLYPHFOLD_STORE)');
    const scheme = run('tree', '--store', 'mysql://root:sesame@db/x');
    expect(scheme.code).toBe(2);
    expect(scheme.err).toContain("--store: unknown scheme 'mysql:' in mysql://root:***@db/x");
    expect(scheme.err).not.toContain('sesame');

    const port = await closedPort();
    const down = run('tree', '--store', `postgres://ann:hunter2@127.0.0.1:${port}/app`);
    expect(down.code).toBe(1);
    expect(down.err).toContain(
      `cannot open the PostgreSQL store postgres://ann:***@127.0.0.1:${port}/app at 127.0.0.1:${port}:`,
    );
    expect(down.err).toMatch(/ECONNREFUSED/);
    expect(down.err).not.toContain('hunter2');
    const noDb = run(
      'import',
      join(fixtures, 'anthropic.json'),
      '--store',
      `${c.url.replace('postgres@', 'postgres:s3cr%40t@').replace(/\/postgres$/, '/nosuchdb')}`,
    );
    expect(noDb.code).toBe(1);
    expect(noDb.err).toContain('database "nosuchdb" does not exist');
    expect(noDb.err).not.toMatch(/s3cr/);

    // Reading names the missing store and creates nothing.
    const missing = run('tree', '--store', `${c.url}?schema=nothere`);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('no glyphfold store in');
    expect(missing.err).toContain('schema "nothere" does not exist');
    expect(await schemaExists('nothere')).toBe(false);
    const insp = run('inspect', '--store', `${c.url}?schema=nothere`, '--port', '0');
    expect(insp.code).toBe(1);
    expect(await schemaExists('nothere')).toBe(false);
    const reindex = run('reindex', '--store', c.url);
    expect(reindex.code).toBe(2);
    expect(reindex.err).toContain('is a PostgreSQL store, whose tables are the record itself');
  });

  it('says to install pg when the driver is missing (a package without it, in a real child process)', () => {
    // The package as an app would have it, with every dependency but pg.
    const pkg = join(dir, 'no-pg');
    mkdirSync(join(pkg, 'node_modules'), { recursive: true });
    symlinkSync(join(repo, 'dist'), join(pkg, 'dist'), 'dir');
    symlinkSync(join(repo, 'build'), join(pkg, 'build'), 'dir');
    cpSync(join(repo, 'package.json'), join(pkg, 'package.json'));
    for (const name of readdirSync(join(repo, 'node_modules')))
      if (name !== 'pg' && name !== '.bin')
        symlinkSync(join(repo, 'node_modules', name), join(pkg, 'node_modules', name));
    const r = spawnSync(
      process.execPath,
      [
        '--preserve-symlinks',
        '--preserve-symlinks-main',
        join(pkg, 'dist', 'cli', 'main.js'),
        'tree',
        '--store',
        c.url,
      ],
      { cwd: dir, encoding: 'utf8', env: { ...process.env, GLYPHFOLD_STORE: '' } },
    );
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain("the PostgreSQL driver is not installed; run 'npm install pg'");
    // The folder commands do not need it.
    const folder = spawnSync(
      process.execPath,
      [
        '--preserve-symlinks',
        '--preserve-symlinks-main',
        join(pkg, 'dist', 'cli', 'main.js'),
        'import',
        join(fixtures, 'anthropic.json'),
        '--store',
        'file:ws-nopg',
      ],
      { cwd: dir, encoding: 'utf8', env: { ...process.env, GLYPHFOLD_STORE: '' } },
    );
    expect(folder.status, folder.stderr).toBe(0);
    expect(existsSync(join(dir, 'ws-nopg', 'logs'))).toBe(true);
  });
});

describe('--store with a folder (no server needed)', () => {
  it('takes file: URLs and plain paths for a folder workspace', () => {
    const d = mkdtempSync(join(tmpdir(), 'gf-store-file-'));
    try {
      const r = cli(
        [
          'import',
          join(fixtures, 'anthropic.json'),
          '--store',
          `file://${join(d, 'a')}`,
          '--conversation',
          'x',
        ],
        { cwd: d },
      );
      expect(r.code, r.err).toBe(0);
      expect(existsSync(join(d, 'a', 'logs', 'x', 'main.jsonl'))).toBe(true);
      const t = cli(['tree', '--store', 'a'], { cwd: d });
      expect(t.out).toMatch(/^x {2}main/);
      expect(cli(['tree', '--store', 'file:a'], { cwd: d }).out).toBe(t.out);
      expect(cli(['tree', '--workspace', 'a'], { cwd: d }).out).toBe(t.out);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});
