/**
 * Slash commands as a plain data table (STYLE.md practice 6): `/compact [instructions]`, `/shake`,
 * `/context`, `/tree`, `/branch ID`, `/fork`, `/checkpoint LABEL`, `/rewind LABEL`. Each runs against
 * one agent history; compaction commands append their compaction items to it in one commit (the record
 * gains a note of what was done, nothing in it is changed). Library functions first: `glyphfold repl`
 * is one caller.
 */
import { formatReport } from '../compaction/report.js';
import { prepareRequest, setupCompaction, type CompactionOptions } from '../compaction/policy.js';
import type { CompactionRecord } from '../compaction/record.js';
import type { Rung } from '../compaction/rung.js';
import { DEFAULT_LADDER, SHAKE_LADDER } from '../compaction/rungs.js';
import { estimateTokens } from '../tokens/index.js';
import type { AgentHistory } from '../tree/index.js';
import { renderTree } from '../tree/index.js';

export interface SlashContext {
  history: AgentHistory;
  /**
   * Target model and compaction settings (the summarizer, if any, is used by /compact). Its `ladder`
   * is what `/compact` climbs (default `DEFAULT_LADDER`); `/shake` climbs `SHAKE_LADDER`.
   */
  compaction: CompactionOptions;
}

/** The rungs `/compact` climbs: the harness's ladder, else the default one. */
export function compactLadder(ctx: SlashContext): readonly Rung[] {
  return ctx.compaction.ladder ?? DEFAULT_LADDER;
}

export interface SlashResult {
  /** Text for the person. */
  output: string;
  /** When the command moved to another history (/fork), the one to continue with. */
  history?: AgentHistory;
}

export interface SlashCommand {
  name: string;
  /** Argument synopsis for help, e.g. `[instructions]`. */
  args: string;
  summary: string;
  run(args: string, ctx: SlashContext): Promise<SlashResult>;
}

/** Appends compaction records in one commit (a pending turn is committed with them). */
export function appendRecords(history: AgentHistory, records: readonly CompactionRecord[]): void {
  if (records.length === 0) return;
  for (const r of records) history.append(r);
  history.commit();
}

function required(args: string, what: string, command: string): string {
  const v = args.trim();
  if (!v) throw new SlashUsageError(`${command} needs ${what}`);
  return v;
}

/** A slash command called the wrong way; the message says how to call it. */
export class SlashUsageError extends Error {
  override name = 'SlashUsageError';
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  {
    name: 'compact',
    args: '[instructions]',
    summary: 'compact now, all rungs (instructions steer the summary)',
    async run(args, ctx) {
      const options: CompactionOptions = { ...ctx.compaction, ladder: compactLadder(ctx) };
      const instructions = args.trim();
      if (instructions && options.summarizer) options.summarizer = { ...options.summarizer, instructions };
      const r = await prepareRequest(ctx.history.path(), options, true);
      appendRecords(ctx.history, r.records);
      const note =
        instructions && !options.summarizer ? 'note: no summarizer configured, instructions unused\n' : '';
      return { output: formatReport(r.report) + note };
    },
  },
  {
    name: 'shake',
    args: '',
    summary: 'the free rungs only: elide old tool results, shed old images',
    async run(_args, ctx) {
      const r = await prepareRequest(ctx.history.path(), { ...ctx.compaction, ladder: SHAKE_LADDER }, true);
      appendRecords(ctx.history, r.records);
      return { output: formatReport(r.report) };
    },
  },
  {
    name: 'context',
    args: '',
    summary: 'tokens of the next request by author and kind, and window use',
    async run(_args, ctx) {
      const setup = setupCompaction(ctx.compaction);
      const r = await prepareRequest(ctx.history.path(), { ...ctx.compaction, ladder: [] }, false, setup);
      const est = estimateTokens(setup.wire, r.items, setup.request, { calibrator: setup.calibrator });
      const b = setup.budget;
      const pct = (n: number) => `${((100 * n) / b.window).toFixed(1)}%`;
      const lines = [
        `${ctx.compaction.model}: ${est.total} of ${b.window} tokens (${pct(est.total)}); limit ${b.limit}, trigger ${b.trigger}`,
        ...est.rows.map(
          (row) =>
            `  ${`${row.author}/${row.kind}`.padEnd(26)} ${String(row.tokens).padStart(8)}  ${String(row.items).padStart(5)} items`,
        ),
      ];
      if (est.imageCount) lines.push(`  images: ${est.imageCount} (${est.images} tokens)`);
      return { output: lines.join('\n') + '\n' };
    },
  },
  {
    name: 'tree',
    args: '',
    summary: 'the session tree, tip and checkpoints',
    async run(_args, ctx) {
      const h = ctx.history;
      return { output: renderTree(h.items(), h.tip, h.checkpoints()) + '\n' };
    },
  },
  {
    name: 'branch',
    args: 'ITEM_ID',
    summary: 'move the tip to an item (writes no items)',
    async run(args, ctx) {
      const id = required(args, 'an item id', '/branch');
      ctx.history.branch(id);
      return { output: `tip is now ${ctx.history.tip}\n` };
    },
  },
  {
    name: 'fork',
    args: '',
    summary: 'copy the current path into a new conversation and continue there',
    async run(_args, ctx) {
      const fork = ctx.history.fork();
      return { output: `forked into conversation ${fork.conversation}\n`, history: fork };
    },
  },
  {
    name: 'checkpoint',
    args: 'LABEL',
    summary: 'label the current position',
    async run(args, ctx) {
      const label = required(args, 'a label', '/checkpoint');
      const c = ctx.history.checkpoint(label);
      return { output: `checkpoint ${c.label} at ${c.at ?? 'the start'}\n` };
    },
  },
  {
    name: 'rewind',
    args: 'LABEL',
    summary: 'go back to a checkpoint, keeping a digest of what was abandoned',
    async run(args, ctx) {
      const label = required(args, 'a checkpoint label', '/rewind');
      const r = ctx.history.rewind(label);
      return { output: `rewound to ${label}: ${r.abandoned.length} items abandoned, tip ${r.tip}\n` };
    },
  },
];

/** Whether `line` is a slash command (`/name …`). */
export function isSlash(line: string): boolean {
  return /^\/[a-z]/.test(line.trim());
}

/** Runs one slash command line; throws a SlashUsageError naming the known commands for an unknown one. */
export async function runSlash(line: string, ctx: SlashContext): Promise<SlashResult> {
  const m = /^\/([a-z-]+)(?:\s+([\s\S]*))?$/.exec(line.trim());
  if (!m) throw new SlashUsageError(`not a slash command: '${line.trim()}'`);
  const command = SLASH_COMMANDS.find((c) => c.name === m[1]);
  if (!command) {
    throw new SlashUsageError(
      `unknown command /${m[1]}: expected one of ${SLASH_COMMANDS.map((c) => `/${c.name}`).join(', ')}`,
    );
  }
  return command.run(m[2] ?? '', ctx);
}

/** Help text for every command. */
export function slashHelp(): string {
  return SLASH_COMMANDS.map((c) => `/${c.name}${c.args ? ' ' + c.args : ''}  ${c.summary}`).join('\n') + '\n';
}
