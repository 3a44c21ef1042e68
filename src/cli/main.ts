#!/usr/bin/env node
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { UsageError, type CliIO } from './command.js';
import { COMMANDS } from './commands.js';
import { scrubSecrets } from './store.js';

function help(io: CliIO): void {
  const width = Math.max(...COMMANDS.map((c) => c.name.length), 4);
  io.stdout.write('usage: glyphfold <command> [options]\n\ncommands:\n');
  for (const c of COMMANDS) io.stdout.write(`  ${c.name.padEnd(width)}  ${c.summary}\n`);
  io.stdout.write(
    `\n'glyphfold help <command>' or 'glyphfold <command> --help' shows a command's options; --version prints the version.\n`,
  );
}

/** The package's version, read from its package.json (dist/cli/ → ../../package.json). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** `--help` / `-h` among a command's arguments (before a `--` that ends the options). */
function asksHelp(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/** Runs the CLI with `argv` (without `node` and the script) and returns the exit code. */
export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V' || name === 'version') {
    io.stdout.write(version() + '\n');
    return 0;
  }
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const wanted = name === 'help' ? rest[0] : undefined;
    if (wanted === undefined) {
      help(io);
      return name === undefined ? 2 : 0;
    }
    const target = COMMANDS.find((c) => c.name === wanted);
    if (!target) {
      io.stderr.write(
        `glyphfold help: unknown command '${wanted}'. Commands: ${COMMANDS.map((c) => c.name).join(', ')}\n`,
      );
      return 2;
    }
    io.stdout.write(target.usage.trimEnd() + '\n');
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.stderr.write(
      `glyphfold: unknown command '${name}'. Commands: ${COMMANDS.map((c) => c.name).join(', ')}\n`,
    );
    return 2;
  }
  if (asksHelp(rest)) {
    io.stdout.write(command.usage.trimEnd() + '\n');
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(
        `glyphfold ${name}: ${scrubSecrets((err as Error).message)}\n\n${command.usage.trimEnd()}\n`,
      );
      return 2;
    }
    // A password given in a store URL never reaches the terminal, whatever error carried it.
    io.stderr.write(`glyphfold ${name}: ${scrubSecrets(err instanceof Error ? err.message : String(err))}\n`);
    return 1;
  }
}

function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/**
 * A reader that stops early (`glyphfold tree … | head`) closes the pipe; the next write fails with
 * EPIPE. That is the reader's choice, not an error: end quietly with status 0, as `cat` under a shell
 * pipeline ends. Committed work is on disk already (each commit is fsynced before anything is printed).
 */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

if (isEntryPoint()) {
  quietOnClosedPipe(process.stdout);
  const io: CliIO = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    isTTY: Boolean(process.stderr.isTTY),
    cwd: process.cwd(),
  };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`glyphfold: ${scrubSecrets(String(err))}\n`);
      process.exitCode = 1;
    },
  );
}
