/** `glyphfold serve` as a real child process, and raw HTTP over a real socket to it. */
import { rng } from '../../src/probe/random.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';

export interface ServeChild {
  child: ChildProcess;
  url: string;
  port: number;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** True while the process runs. */
  alive(): boolean;
  stop(): Promise<number | null>;
}

/** Starts `glyphfold serve --port 0 …args` from the sources; resolves once it prints its URL. */
export async function startServe(args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ServeChild> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
  );
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (c: string) => (err += c));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c: string) => {
      out += c;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited early with ${code}: ${out}${err}`)));
  });
  return {
    child,
    url,
    port: Number(new URL(url).port),
    stderr: () => err,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

/**
 * Writes `bytes` to a fresh TCP connection and collects what comes back until the server closes it.
 * With `abortAfter`, destroys the socket after that many bytes were written (a client going away).
 */
export function rawRequest(
  port: number,
  bytes: Buffer,
  options: { abortAfter?: number } = {},
): Promise<{ status: number | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const done = () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : undefined, text });
    };
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', done);
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // A reset after the server answered and closed is the server's right; anything else is ours.
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
    });
    socket.on('connect', () => {
      if (options.abortAfter !== undefined) {
        socket.write(bytes.subarray(0, options.abortAfter), () => socket.destroy());
      } else {
        socket.end(bytes);
      }
    });
  });
}

/** A seeded PRNG (the probe's mulberry32): the fuzz run is the same sequence every time for one seed. */
export function prng(seed: number): () => number {
  return rng(seed).next;
}
