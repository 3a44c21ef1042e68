/** Runs the `glyphfold` CLI in-process with captured streams, as the tests of every command do. */
import { PassThrough, Readable, Writable } from 'node:stream';
import type { CliIO } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

export async function runCli(
  argv: string[],
  options: { cwd?: string; stdin?: string; isTTY?: boolean } = {},
): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await main(argv, {
    stdout,
    stderr,
    stdin: Readable.from([Buffer.from(options.stdin ?? '')]),
    isTTY: options.isTTY ?? false,
    cwd: options.cwd ?? process.cwd(),
  });
  return { code, out, err };
}

/** A CliIO whose output streams are captured, for calling a command's run function directly. */
export function captureIo(cwd = process.cwd()): CliIO & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk: Buffer, _enc, done) {
        append(chunk.toString());
        done();
      },
    });
  return {
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
    stdin: process.stdin,
    isTTY: false,
    cwd,
    out: () => out,
    err: () => err,
  };
}
