import { parseArgs } from 'node:util';
import { exportJsonl } from '../transcript/jsonl.js';
import { renderTree } from '../tree/render.js';
import { UsageError, type Command } from './command.js';
import { requireStore, STORE_OPTIONS, STORE_USAGE, withStore } from './store.js';

const usage = `usage: glyphfold tree (--workspace DIR | --store URL) [CONVERSATION] [--agent NAME] [--jsonl]
                      [--width N]

Without CONVERSATION, lists the conversations of the store (agents, items, turn, lineage).
With it, draws each agent's session tree as ASCII: one line per item, branches as |- and \`-,
the tip marked "<- tip", checkpoints "[checkpoint LABEL]". Problems found in a log are printed first.
--jsonl prints the active path (root -> tip) of the agent as JSONL instead. The store is read only.

${STORE_USAGE}
`;

export const treeCommand: Command = {
  name: 'tree',
  summary: 'show the session tree of a conversation (tip and checkpoints marked)',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...STORE_OPTIONS,
        agent: { type: 'string' },
        jsonl: { type: 'boolean', default: false },
        width: { type: 'string', default: '60' },
      },
    });
    const spec = requireStore(values, io);
    if (positionals.length > 1)
      throw new UsageError(`expected at most one CONVERSATION, found ${positionals.length}`);
    const width = Number(values.width);
    if (!Number.isInteger(width) || width < 8)
      throw new UsageError(`--width expected an integer >= 8, found ${values.width}`);
    // Read-only: a mistyped directory or database is an error, not a new store.
    return withStore(spec, { readOnly: true }, async (store) => {
      const id = positionals[0];
      if (id === undefined) {
        const ids = await store.conversations();
        if (ids.length === 0) io.stdout.write(`no conversations in ${store.shown}\n`);
        for (const c of ids) {
          const info = (await store.conversation(c))!;
          const agents: string[] = [];
          for (const a of info.agents) {
            const row = await store.summary(c, a);
            agents.push(`${a} (${row?.items ?? 0} items, turn ${row?.turn ?? 0})`);
          }
          const from = info.forkedFrom ? `  forked from ${info.forkedFrom.conversation}` : '';
          io.stdout.write(`${c}  ${agents.join(', ')}${from}\n`);
        }
        return 0;
      }
      const info = await store.conversation(id);
      if (!info) throw new Error(`no conversation ${id} in ${store.shown}`);
      const agents = values.agent !== undefined ? [values.agent] : info.agents;
      if (values.jsonl && agents.length !== 1)
        throw new UsageError(`--jsonl needs one agent; ${id} has ${agents.join(', ')} (pass --agent)`);
      for (const agent of agents) {
        if (!info.agents.includes(agent))
          throw new Error(`conversation ${id} has no agent '${agent}'; it has: ${info.agents.join(', ')}`);
        const h = await store.read(id, agent);
        try {
          if (values.jsonl) {
            io.stdout.write(exportJsonl(h.path()));
            continue;
          }
          const from = h.header?.forkedFrom
            ? ` (forked from ${h.header.forkedFrom.conversation} at ${h.header.forkedFrom.tip ?? 'start'})`
            : '';
          io.stdout.write(`conversation ${id} agent ${agent}: ${h.itemCount} items, turn ${h.turn}${from}\n`);
          for (const p of h.problems) io.stdout.write(`! ${p.kind}: ${p.message}\n`);
          io.stdout.write(renderTree(h.items(), h.tip, h.checkpoints(), { width }));
        } finally {
          await h.close();
        }
      }
      return 0;
    });
  },
};
