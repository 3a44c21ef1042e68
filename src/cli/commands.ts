import type { Command } from './command.js';
import { importCommand } from './import.js';
import { reindexCommand } from './reindex.js';
import { treeCommand } from './tree.js';

/**
 * Every subcommand, as data. Add a command by writing `src/cli/<name>.ts` that exports a `Command`
 * and listing it here.
 */
export const COMMANDS: readonly Command[] = [importCommand, treeCommand, reindexCommand];
