import { benchCommand } from './bench.js';
import type { Command } from './command.js';
import { compactCommand } from './compact.js';
import { decodeCommand } from './decode.js';
import { exportCommand } from './export.js';
import { importCommand } from './import.js';
import { inspectCommand } from './inspect.js';
import { probeCommand } from './probe.js';
import { reindexCommand } from './reindex.js';
import { replCommand } from './repl.js';
import { renderCommand } from './render.js';
import { serveCommand } from './serve.js';
import { shapesCommand } from './shapes.js';
import { treeCommand } from './tree.js';
import { viewCommand } from './view.js';

/**
 * Every subcommand, as data. Add a command by writing `src/cli/<name>.ts` that exports a `Command`
 * and listing it here.
 */
export const COMMANDS: readonly Command[] = [
  renderCommand,
  decodeCommand,
  shapesCommand,
  importCommand,
  treeCommand,
  exportCommand,
  reindexCommand,
  viewCommand,
  compactCommand,
  replCommand,
  probeCommand,
  serveCommand,
  inspectCommand,
  benchCommand,
];
