import type { Command } from './command.js';
import { decodeCommand } from './decode.js';
import { probeCommand } from './probe.js';
import { renderCommand } from './render.js';
import { serveCommand } from './serve.js';
import { shapesCommand } from './shapes.js';

/**
 * Every subcommand, as data. Add a command by writing `src/cli/<name>.ts` that exports a `Command`
 * and listing it here.
 */
export const COMMANDS: readonly Command[] = [
  renderCommand,
  decodeCommand,
  shapesCommand,
  probeCommand,
  serveCommand,
];
