import { canonicalJson } from './canonical.js';
import type { Item } from './items.js';

/**
 * Exports items (typically a path root → tip) as JSONL: one item per line in canonical JSON, in the
 * order given, ending with a newline. The output is deterministic for the same items.
 */
export function exportJsonl(items: readonly Item[]): string {
  let out = '';
  for (const item of items) out += canonicalJson(item) + '\n';
  return out;
}
