import { parseArgs } from 'node:util';
import { ReindexLossError, Workspace } from '../store/workspace.js';
import { UsageError, type Command } from './command.js';
import { requireStore, STORE_OPTIONS } from './store.js';

const usage = `usage: glyphfold reindex (--workspace DIR | --store file:DIR) [--accept-loss]

Rebuilds the workspace database (conversations, agents, tips, checkpoints, fork lineage) from the
JSONL logs, which are the source of truth and are not modified. Prints what each damaged log holds,
with line numbers; exits 1 when a log has damage beyond an uncommitted tail.

A log holding less than the database recorded as committed (truncated, rewritten, or deleted) is a
loss: reindex lists every one, changes nothing and exits 1, unless --accept-loss is given. An
unreadable database is moved aside to workspace.db.corrupt-<time> and rebuilt.

  --accept-loss   rebuild even though committed turns are missing from the logs listed

A PostgreSQL store has nothing to reindex: its tables are the record itself.
`;

export const reindexCommand: Command = {
  name: 'reindex',
  summary: 'rebuild the workspace database from the conversation logs',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { ...STORE_OPTIONS, 'accept-loss': { type: 'boolean', default: false } },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    const spec = requireStore(values, io);
    if (spec.kind !== 'folder')
      throw new UsageError(
        `reindex rebuilds a folder workspace's database from its logs; ${spec.shown} is a PostgreSQL store, whose tables are the record itself (nothing to rebuild)`,
      );
    const ws = Workspace.open(spec.dir);
    try {
      let r;
      try {
        r = ws.reindex({ acceptLoss: values['accept-loss'] });
      } catch (err) {
        if (!(err instanceof ReindexLossError)) throw err;
        for (const l of err.losses)
          io.stderr.write(`${l.conversation}/${l.agent}: lost: ${l.kind}: ${l.message}\n`);
        io.stderr.write(
          `glyphfold reindex: ${err.losses.length} log(s) hold less than the database recorded as committed; ` +
            `nothing was changed. Restore the logs from a backup, or pass --accept-loss to rebuild without those turns.\n`,
        );
        return 1;
      }
      if (r.movedAside)
        io.stderr.write(
          `the workspace database could not be read; it was moved to ${r.movedAside} and rebuilt\n`,
        );
      for (const l of r.losses)
        io.stderr.write(`${l.conversation}/${l.agent}: lost (accepted): ${l.kind}: ${l.message}\n`);
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
