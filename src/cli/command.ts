/** The contract every `glyphfold` subcommand implements; the table in `commands.ts` lists them. */

export interface CliIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  /** True when progress may be drawn (stderr is a terminal). */
  isTTY: boolean;
  cwd: string;
}

export interface Command {
  name: string;
  /** One line for `glyphfold help`. */
  summary: string;
  /** Full usage text, printed by `glyphfold help NAME` and on a usage error. */
  usage: string;
  /** Returns the process exit code. */
  run(argv: string[], io: CliIO): Promise<number>;
}

/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
