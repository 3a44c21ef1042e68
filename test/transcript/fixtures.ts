/** Reads the shared transcript fixtures (test/fixtures/transcripts). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Item, ToolCallItem, ToolResultItem } from '../../src/transcript/items.js';

export const FIXTURES = join(import.meta.dirname, '../fixtures/transcripts');
export const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');

/** Checks the invariants every importer promises: ids, parent chain, non-decreasing turns and times. */
export function expectLinearPath(items: Item[], prefix = 'imp'): void {
  items.forEach((item, i) => {
    if (item.id !== `${prefix}-${String(i + 1).padStart(6, '0')}`)
      throw new Error(`item ${i}: id ${item.id}`);
    if (item.parent !== (i === 0 ? null : items[i - 1]!.id))
      throw new Error(`item ${i}: parent ${item.parent}`);
    if (i > 0 && item.turn < items[i - 1]!.turn) throw new Error(`item ${i}: turn goes back`);
    if (i > 0 && item.time < items[i - 1]!.time) throw new Error(`item ${i}: time goes back`);
  });
}

/** A path root → tip: each item continues from the one before, turns and times never go back. */
export function expectChain(items: readonly Item[]): void {
  items.forEach((item, i) => {
    if (item.parent !== (i === 0 ? null : items[i - 1]!.id))
      throw new Error(`item ${i}: parent ${item.parent}, expected ${i === 0 ? null : items[i - 1]!.id}`);
    if (i > 0 && item.turn < items[i - 1]!.turn) throw new Error(`item ${i}: turn goes back`);
    if (i > 0 && item.time < items[i - 1]!.time) throw new Error(`item ${i}: time goes back`);
  });
}

/** A tree in log order: unique ids, every parent earlier, turns never go back in log order. */
export function expectTree(items: readonly Item[]): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.id)) throw new Error(`item ${i}: id ${item.id} repeats`);
    if (item.parent !== null && !seen.has(item.parent))
      throw new Error(`item ${i}: parent ${item.parent} is not earlier`);
    if (i > 0 && item.turn < items[i - 1]!.turn) throw new Error(`item ${i}: turn goes back`);
    seen.add(item.id);
  });
}

export const calls = (items: Item[]): ToolCallItem[] =>
  items.filter((i): i is ToolCallItem => i.kind === 'tool_call');
export const results = (items: Item[]): ToolResultItem[] =>
  items.filter((i): i is ToolResultItem => i.kind === 'tool_result');
