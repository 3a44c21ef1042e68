import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Workspace } from '../store/workspace.js';
import { exportJsonl } from '../transcript/jsonl.js';
import { renderTree } from '../tree/render.js';
import { UsageError, type Command } from './command.js';
import { requireWorkspace } from './args.js';

const usage = `usage: glyphfold tree --workspace DIR [CONVERSATION] [--agent NAME] [--jsonl] [--width N]

Without CONVERSATION, lists the conversations of the workspace (agents, items, turn, lineage).
With it, draws each agent's session tree as ASCII: one line per item, branches as |- and \`-,
the tip marked "<- tip", checkpoints "[checkpoint LABEL]". Problems found in a log are printed first.
--jsonl prints the active path (root -> tip) of the agent as JSONL instead.
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
        workspace: { type: 'string' },
        agent: { type: 'string' },
        jsonl: { type: 'boolean', default: false },
        width: { type: 'string', default: '60' },
      },
    });
    const dir = requireWorkspace(values.workspace);
    if (positionals.length > 1)
      throw new UsageError(`expected at most one CONVERSATION, found ${positionals.length}`);
    const width = Number(values.width);
    if (!Number.isInteger(width) || width < 8)
      throw new UsageError(`--width expected an integer >= 8, found ${values.width}`);
    // Read-only: a mistyped directory is an error, not a new workspace.
    const ws = Workspace.open(resolve(io.cwd, dir), { readOnly: true });
    try {
      const id = positionals[0];
      if (id === undefined) {
        const ids = ws.conversations();
        if (ids.length === 0) io.stdout.write(`no conversations in ${dir}\n`);
        for (const c of ids) {
          const info = ws.conversation(c)!;
          const agents = info.agents.map((a) => {
            const row = ws.historyRow(c, a);
            return `${a} (${row?.items ?? 0} items, turn ${row?.turn ?? 0})`;
          });
          const from = info.forkedFrom ? `  forked from ${info.forkedFrom.conversation}` : '';
          io.stdout.write(`${c}  ${agents.join(', ')}${from}\n`);
        }
        return 0;
      }
      const info = ws.conversation(id);
      if (!info) throw new Error(`no conversation ${id} in ${dir}`);
      const agents = values.agent !== undefined ? [values.agent] : info.agents;
      if (values.jsonl && agents.length !== 1)
        throw new UsageError(`--jsonl needs one agent; ${id} has ${agents.join(', ')} (pass --agent)`);
      for (const agent of agents) {
        const h = ws.history(id, agent, { readOnly: true });
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
      }
      return 0;
    } finally {
      ws.close();
    }
  },
};
