/** Runs the `glyphfold` CLI in-process with captured streams, as the tests of every command do. */
import { PassThrough, Readable } from 'node:stream';
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
