import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Workspace } from '../store/workspace.js';
import { UsageError, type Command } from './command.js';
import { requireWorkspace } from './args.js';

const usage = `usage: glyphfold reindex --workspace DIR

Rebuilds the workspace database (conversations, agents, tips, checkpoints, fork lineage) from the
JSONL logs, which are the source of truth and are not modified. Prints what each damaged log holds,
with line numbers; exits 1 when a log has damage beyond an uncommitted tail.
`;

export const reindexCommand: Command = {
  name: 'reindex',
  summary: 'rebuild the workspace database from the conversation logs',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { workspace: { type: 'string' } },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    const dir = requireWorkspace(values.workspace);
    const ws = Workspace.open(resolve(io.cwd, dir));
    try {
      const r = ws.reindex();
      io.stdout.write(
        `reindexed ${r.conversations} conversations, ${r.histories} histories, ${r.items} items\n`,
      );
      for (const s of r.skipped) io.stderr.write(`skipped ${s}: not a valid conversation or agent id\n`);
      let damaged = false;
      for (const { conversation, agent, problems } of r.problems) {
        for (const p of problems) {
          io.stderr.write(`${conversation}/${agent}: ${p.kind}: ${p.message}\n`);
          if (p.kind !== 'uncommitted') damaged = true;
        }
      }
      return damaged ? 1 : 0;
    } finally {
      ws.close();
    }
  },
};
