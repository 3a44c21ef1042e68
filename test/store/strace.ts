/**
 * Tracing real system calls with strace (issue 18: durability beyond SIGKILL). Two ways: `durability.test.ts`
 * runs a child process under strace; `traceSelf` attaches strace to the test's own process for the span
 * of one synchronous call, so code that runs in the test process (where a mutation tool switches its
 * mutants on) is traced as it runs. Both parse strace's own output; nothing of ours is replaced.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Why strace cannot be used here, or `undefined` when it can (.ci/run installs it). */
export function straceProblem(): string | undefined {
  const r = spawnSync('strace', ['-f', '-o', '/dev/null', process.execPath, '-e', '0']);
  if (r.error)
    return `strace is not available (${(r.error as NodeJS.ErrnoException).code}); .ci/run installs it`;
  if (r.status !== 0) return `strace cannot trace here: ${r.stderr.toString().trim().split('\n')[0]}`;
  return undefined;
}

export interface Call {
  name: string;
  args: string;
  result: string;
  line: number;
}

/** Parses `strace -f -y -s N` output: `pid name(args) = result`, with unfinished/resumed lines joined. */
export function parse(text: string): Call[] {
  const calls: Call[] = [];
  const pending = new Map<string, string>();
  text.split('\n').forEach((raw, line) => {
    const m = /^(\d+)\s+(.*)$/.exec(raw);
    if (!m) return;
    const [, pid, rest] = m as unknown as [string, string, string];
    let body = rest;
    const unfinished = /^(.*) <unfinished \.\.\.>$/.exec(body);
    if (unfinished) {
      pending.set(pid, unfinished[1]!);
      return;
    }
    const resumed = /^<\.\.\. \w+ resumed>(.*)$/.exec(body);
    if (resumed) body = (pending.get(pid) ?? '') + resumed[1]!;
    const c = /^(\w+)\((.*)\)\s+=\s+(.*)$/.exec(body);
    if (c) calls.push({ name: c[1]!, args: c[2]!, result: c[3]!, line });
  });
  return calls;
}

/** `fd<path>` as strace -y prints it: the path of the first argument. */
export const fdPath = (c: Call): string | undefined => /^\d+<([^>]*)>/.exec(c.args)?.[1];

/** The system calls whose order and presence the store's durability rests on. */
export const TRACED =
  'openat,read,pread64,write,pwrite64,writev,fsync,fdatasync,rename,renameat,renameat2,ftruncate,close';

/**
 * Runs `fn` (synchronous) with strace attached to this process and all its threads, and returns the
 * calls traced while it ran. strace's "attached" notice is awaited before `fn` starts; detaching
 * (SIGINT) flushes the trace. Only calls on paths the caller picks out are meaningful: the test
 * runner's own threads are traced too.
 */
export async function traceSelf<T>(fn: () => T): Promise<{ calls: Call[]; value: T }> {
  const dir = mkdtempSync(join(tmpdir(), 'gf-trace-'));
  const out = join(dir, 'trace.txt');
  try {
    const child = spawn(
      'strace',
      ['-f', '-y', '-s', '256', '-e', `trace=${TRACED}`, '-o', out, '-p', String(process.pid)],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (b: Buffer) => {
        stderr += b.toString();
        if (/attached/.test(stderr)) resolve();
      });
      child.on('error', reject);
      void exited.then(() => reject(new Error(`strace exited before attaching: ${stderr.trim()}`)));
    });
    let value: T;
    try {
      value = fn();
    } finally {
      child.kill('SIGINT');
      await exited;
    }
    return { calls: parse(readFileSync(out, 'utf8')), value };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Why strace cannot attach to this process, or `undefined` when it can: tracing a child may be allowed
 * where attaching to a running process is not (Yama `ptrace_scope`, no `CAP_SYS_PTRACE`).
 */
export async function selfTraceProblem(): Promise<string | undefined> {
  const problem = straceProblem();
  if (problem) return problem;
  try {
    await traceSelf(() => undefined);
    return undefined;
  } catch (err) {
    return `strace cannot attach to the test process: ${(err as Error).message}`;
  }
}
