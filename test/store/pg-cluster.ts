/**
 * A throwaway PostgreSQL cluster for tests: `initdb` into a temp dir, `pg_ctl start` on a free port of
 * 127.0.0.1 (its unix socket in the same dir), stopped and removed by `stop()`. As root (CI), the
 * server runs as the `postgres` user that Debian's package creates, since PostgreSQL refuses root.
 *
 * `startCluster()` returns a reason string instead when no server binary is found; in CI (`CI` set) a
 * missing server is an error, as `.ci/run` installs one.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  dataDir: string;
  /** `pg_ctl stop -m immediate`: a crash for the data (no checkpoint; `start()` replays the WAL). */
  crash(): void;
  /** `pg_ctl stop -m fast`, then start again (clients see their connections end). */
  restart(): void;
  start(): void;
  stop(): void;
}

function findBin(): string | undefined {
  if (process.env.GLYPHFOLD_PG_BIN) return process.env.GLYPHFOLD_PG_BIN;
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  const path = which.stdout.trim();
  return path ? join(path, '..') : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export async function startCluster(): Promise<PgCluster | string> {
  const bin = findBin();
  if (!bin) {
    const why =
      'PostgreSQL tests skipped: no initdb found (apt-get install postgresql, or set GLYPHFOLD_PG_BIN)';
    if (process.env.CI) throw new Error(`${why}; in CI .ci/run installs it`);
    return why;
  }
  const root = process.getuid?.() === 0;
  let uid: number | undefined;
  let gid: number | undefined;
  if (root) {
    const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    if (id.status !== 0)
      return 'PostgreSQL tests skipped: running as root and there is no postgres user to run the server as';
    uid = Number(id.stdout.trim());
    gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  }
  const dir = mkdtempSync(join(tmpdir(), 'gf-pg-'));
  chmodSync(dir, 0o700);
  if (uid !== undefined) chownSync(dir, uid, gid!);
  const dataDir = join(dir, 'data');
  const run = (cmd: string, args: string[]): void => {
    const full = root
      ? (['runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]] as const)
      : ([join(bin, cmd), args] as const);
    try {
      execFileSync(full[0], [...full[1]], { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
    } catch (err) {
      const e = err as { stderr?: Buffer; stdout?: Buffer };
      let log = '';
      try {
        log = readFileSync(join(dir, 'log'), 'utf8').slice(-2000);
      } catch {
        // no log yet
      }
      throw new Error(
        `${cmd} ${args.join(' ')} failed: ${e.stderr?.toString() ?? ''}${e.stdout?.toString() ?? ''}\n${log}`,
        {
          cause: err,
        },
      );
    }
  };
  run('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=32MB`;
  const start = (): void =>
    run('pg_ctl', ['-D', dataDir, '-o', opts, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  start();
  const pid = (): number => Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let stopped = false;
  const kill = (): void => {
    if (stopped) return;
    try {
      process.kill(pid(), 'SIGQUIT'); // immediate shutdown: the process is going away
    } catch {
      // already gone
    }
  };
  process.once('exit', kill);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    crash: () => run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']),
    start,
    restart: () =>
      run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'restart', '-o', opts, '-l', join(dir, 'log')]),
    stop: () => {
      if (stopped) return;
      try {
        run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
      } finally {
        stopped = true;
        process.off('exit', kill);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A user name for messages. */
export const whoami = (): string => userInfo().username;
