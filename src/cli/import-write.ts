/**
 * Writing an import into a store (a folder workspace or a database, through `StoreHandle`): the main history and each agent's, with the tip and the
 * checkpoints the source marked. Re-running on a grown source appends what is new; a source whose
 * earlier part changed is refused ("rewritten"), never merged.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreHandle } from '../store/handle.js';
import type { ImportedCheckpoint, ImportResult } from '../transcript/import/index.js';
import { canonicalJson } from '../transcript/canonical.js';
import type { Item } from '../transcript/items.js';
import type { Checkpoint } from '../transcript/log.js';

export type HistoryOutcome = 'imported' | 'extended' | 'unchanged' | 'rewritten';

export interface HistoryReport {
  agent: string;
  outcome: HistoryOutcome;
  /** Items written (or, in a dry run, that would be). */
  items: number;
  /** Leaves of the tree: each ends one branch. */
  branches: number;
  checkpoints: number;
  /** For `rewritten`: which item differs. */
  reason?: string;
}

export interface WriteOptions {
  /** Main agent name (default `main`). */
  agent?: string;
  /** Where Claude Code's file backups of this session live (`~/.claude/file-history/<session>`). */
  fileHistory?: string;
  dryRun?: boolean;
  /** Counts file backups a checkpoint names that were not found. */
  onMissingBackup?: (path: string) => void;
}

/** Leaves of a tree given in log order. */
export function leaves(items: readonly Item[]): number {
  const parents = new Set(items.map((i) => i.parent));
  return items.filter((i) => !parents.has(i.id)).length;
}

/** An item as compared across imports: turns are renumbered when a grown log is appended. */
const comparable = (item: Item): string => {
  const { turn: _turn, ...rest } = item;
  return canonicalJson(rest as Item);
};

/** Checkpoints with their files read from the backups into the blob store (missing backups left out). */
async function storeCheckpoints(
  store: StoreHandle,
  checkpoints: readonly ImportedCheckpoint[],
  tree: readonly Item[],
  options: WriteOptions,
): Promise<Checkpoint[]> {
  const turnOf = new Map(tree.map((i) => [i.id, i.turn]));
  const out: Checkpoint[] = [];
  for (const cp of checkpoints) {
    const files: Record<string, string | null> = {};
    for (const [path, { backup }] of Object.entries(cp.files)) {
      if (backup === null) {
        files[path] = null; // the file did not exist before this prompt: restore deletes it
        continue;
      }
      const file = options.fileHistory ? join(options.fileHistory, backup) : undefined;
      if (!file || !existsSync(file)) {
        options.onMissingBackup?.(path);
        continue;
      }
      files[path] = options.dryRun ? '' : await store.blobs.put(readFileSync(file));
    }
    out.push({
      label: cp.label,
      at: cp.at,
      turn: cp.at === null ? 0 : (turnOf.get(cp.at) ?? 0),
      time: cp.time,
      files,
    });
  }
  return out;
}

/** Writes (or extends) one agent's history from an import result. */
async function writeHistory(
  store: StoreHandle,
  conversation: string,
  agent: string,
  result: ImportResult,
  options: WriteOptions,
): Promise<HistoryReport> {
  const exists = (await store.conversation(conversation))?.agents.includes(agent) ?? false;
  if (options.dryRun && !exists) {
    const checkpoints = await storeCheckpoints(store, result.checkpoints, result.tree, options);
    return {
      agent,
      outcome: 'imported',
      items: result.tree.length,
      branches: leaves(result.tree),
      checkpoints: checkpoints.length,
    };
  }
  // A new history records the transcript's system prompt in its log's header (view/compact send it).
  const history = options.dryRun
    ? await store.read(conversation, agent)
    : await store.write(
        conversation,
        agent,
        !exists && result.system !== undefined ? { system: result.system } : {},
      );
  try {
    const branches = leaves(result.tree);
    const old = history.items();
    const byId = new Map(result.tree.map((i) => [i.id, i]));
    for (const item of old) {
      const now = byId.get(item.id);
      if (!now || comparable(now) !== comparable(item))
        return {
          agent,
          outcome: 'rewritten',
          items: 0,
          branches,
          checkpoints: 0,
          reason: `item ${item.id} ${now ? 'differs from' : 'is no longer in'} the source; the history was not changed`,
        };
    }
    const have = new Set(old.map((i) => i.id));
    const fresh = result.tree.filter((i) => !have.has(i.id));
    const known = new Set(history.checkpoints().map((c) => c.label));
    const checkpoints = await storeCheckpoints(
      store,
      result.checkpoints.filter((c) => !known.has(c.label)),
      result.tree,
      options,
    );
    if (fresh.length === 0 && checkpoints.length === 0 && history.tip === result.tip)
      return { agent, outcome: 'unchanged', items: 0, branches, checkpoints: 0 };
    // A log cut mid-turn and grown later continues in a new turn: a history's turns only grow.
    const shift = fresh.length > 0 ? Math.max(0, history.turn + 1 - fresh[0]!.turn) : 0;
    const items = fresh.map((i) => (shift > 0 ? ({ ...i, turn: i.turn + shift } as Item) : i));
    if (!options.dryRun) await history.adopt(items, { tip: result.tip, checkpoints });
    return {
      agent,
      outcome: exists ? 'extended' : 'imported',
      items: items.length,
      branches,
      checkpoints: checkpoints.length,
    };
  } finally {
    await history.close();
  }
}

/** Writes the main history and every agent's of an import into `conversation`. */
export async function writeImport(
  store: StoreHandle,
  conversation: string,
  result: ImportResult,
  options: WriteOptions = {},
): Promise<HistoryReport[]> {
  const main = options.agent ?? 'main';
  const reports = [await writeHistory(store, conversation, main, result, options)];
  for (const a of result.agents) {
    if (a.name === main)
      throw new Error(`agent ${a.name} of the source has the main agent's name; pass another --agent`);
    reports.push(await writeHistory(store, conversation, a.name, a.result, options));
  }
  return reports;
}
