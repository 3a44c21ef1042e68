import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { isSlash, runSlash, slashHelp, SlashUsageError, type SlashContext } from '../commands/index.js';
import { Workspace } from '../store/workspace.js';
import type { AgentHistory } from '../tree/index.js';
import { requireWorkspace } from './args.js';
import { UsageError, type CliIO, type Command } from './command.js';
import { summarizerFor } from './compact.js';
import { readLegibilityFile } from './legibility-options.js';

/** A workspace's own legibility table (format of src/providers/legibility.json), used when present. */
export const WORKSPACE_LEGIBILITY = 'legibility.json';

const usage = `usage: glyphfold repl --workspace DIR --model ID [--conversation ID] [--agent NAME] [--budget TOKENS]
                      [--summarizer ID [--summarizer-url URL]] [--legibility FILE]

Reads lines from stdin against one agent history of a workspace. A line starting with '/' runs a
slash command; any other line is appended as a person message (one turn). No model is called:
this is for working on the record (compact, inspect, branch, rewind). With --summarizer, /compact
may call that model for the summary rung (its API key from the environment), and its instructions
('/compact focus on the API') steer the summary. Snapshot pages are chosen by measured legibility:
your own measurements in DIR/legibility.json (or --legibility FILE) come before the built-in table.

${slashHelp()}/help         this list
/quit         leave
`;

export const replCommand: Command = {
  name: 'repl',
  summary: 'slash commands (/compact /shake /context /tree …) on a workspace history',
  usage,
  async run(argv: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        workspace: { type: 'string' },
        model: { type: 'string' },
        conversation: { type: 'string' },
        agent: { type: 'string', default: 'main' },
        budget: { type: 'string' },
        summarizer: { type: 'string' },
        'summarizer-url': { type: 'string' },
        legibility: { type: 'string' },
      },
    });
    const dir = requireWorkspace(values.workspace);
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    if (!values.model) throw new UsageError('--model ID is required');
    let budget: number | undefined;
    if (values.budget !== undefined) {
      budget = Number(values.budget);
      if (!Number.isInteger(budget) || budget < 1000)
        throw new UsageError(`--budget expects whole tokens ≥ 1000, found '${values.budget}'`);
    }
    // Your own legibility measurements: --legibility FILE, else the workspace's legibility.json (e.g.
    // the table `npm run legibility -- table` builds from your probe's readings), over the built-in.
    const own = values.legibility ?? join(dir, WORKSPACE_LEGIBILITY);
    const legibility =
      values.legibility !== undefined || existsSync(resolve(io.cwd, own))
        ? await readLegibilityFile(resolve(io.cwd, own), own)
        : undefined;
    const ws = Workspace.open(resolve(io.cwd, dir));
    let history: AgentHistory | undefined;
    try {
      const conversation = values.conversation ?? ws.conversations()[0] ?? ws.newConversationId();
      history = ws.history(conversation, values.agent);
      const ctx: SlashContext = {
        history,
        compaction: {
          model: values.model,
          ...(budget ? { budget: { window: budget } } : {}),
          ...(legibility ? { legibility } : {}),
          ...(values.summarizer
            ? { summarizer: summarizerFor(values.summarizer, values['summarizer-url']) }
            : {}),
        },
      };
      io.stdout.write(
        `conversation ${conversation}, agent ${values.agent}, ${ctx.history.path().length} items\n`,
      );
      const lines = createInterface({ input: io.stdin, crlfDelay: Infinity, terminal: false });
      let status = 0;
      for await (const raw of lines) {
        const line = raw.trim();
        if (!line) continue;
        if (line === '/quit' || line === '/exit') break;
        if (line === '/help') {
          io.stdout.write(slashHelp());
          continue;
        }
        try {
          if (isSlash(line)) {
            const r = await runSlash(line, ctx);
            io.stdout.write(r.output);
            if (r.history) {
              ctx.history.close();
              ctx.history = history = r.history;
            }
          } else {
            ctx.history.append({ kind: 'message', author: 'person', text: raw });
            ctx.history.commit();
            io.stdout.write(`appended (turn ${ctx.history.turn})\n`);
          }
        } catch (err) {
          status = 1;
          const prefix = err instanceof SlashUsageError ? 'usage' : 'error';
          io.stdout.write(`${prefix}: ${(err as Error).message}\n`);
        }
      }
      return status;
    } finally {
      history?.close();
      ws.close();
    }
  },
};
