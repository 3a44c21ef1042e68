/**
 * Rung 2, image shedding: images older than the newest K (screenshots pile up without bound, PEERS.md
 * #10) become placeholders naming type, size and item id. Pinned items keep their images.
 */
import type { Item } from '../transcript/items.js';
import { shedImageItem, shedResultImages } from './placeholders.js';
import { sum } from './elide.js';
import type { Estimator, RungResult } from './types.js';

export interface ShedOptions {
  /** How many of the newest images stay. Default 3. */
  keepImages?: number;
  /** Ids an earlier compaction shed: they stay shed (cache stability). */
  sticky?: ReadonlySet<string>;
}

export const SHED_DEFAULTS = { keepImages: 3 } as const;

function imageCount(item: Item): number {
  if (item.kind === 'image') return 1;
  if (item.kind === 'tool_result') return item.content.filter((p) => p.type === 'image').length;
  return 0;
}

/** Sheds images beyond the newest `keepImages`. Pure; `tokens[i]` estimates `items[i]`. */
export function shed(
  items: readonly Item[],
  tokens: readonly number[],
  estimate: Estimator,
  options: ShedOptions = {},
): RungResult & { tokens: number[] } {
  const keep = options.keepImages ?? SHED_DEFAULTS.keepImages;
  if (!Number.isInteger(keep) || keep < 0) {
    throw new RangeError(`shed: keepImages must be a non-negative integer, found ${String(keep)}`);
  }
  const sticky = options.sticky ?? new Set<string>();
  const out = items.slice();
  const outTokens = tokens.slice();
  const ids: string[] = [];
  let seen = 0;
  let total = 0;
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i]!;
    const n = imageCount(it);
    if (n === 0) continue;
    total += n;
    // An item is shed whole: its images are older than the newest `keep` ones counted so far.
    const shedIt = sticky.has(it.id) || (!it.pinned && seen >= keep);
    seen += n;
    if (!shedIt) continue;
    const placeholder =
      it.kind === 'image' ? shedImageItem(it) : it.kind === 'tool_result' ? shedResultImages(it) : it;
    const cost = estimate(placeholder);
    // A placeholder that costs more than the image (a tiny image under a per-pixel rule) saves nothing;
    // an earlier compaction's shed stays as it was, so the request keeps its bytes.
    if (cost >= tokens[i]! && !sticky.has(it.id)) continue;
    out[i] = placeholder;
    outTokens[i] = cost;
    ids.push(it.id);
  }
  ids.reverse();
  return {
    items: out,
    tokens: outTokens,
    report: {
      rung: 'shed',
      applied: ids.length > 0,
      tokensBefore: sum(tokens),
      tokensAfter: sum(outTokens),
      items: ids,
      reason:
        ids.length > 0
          ? `shed ${ids.length} items with images older than the newest ${keep}`
          : total === 0
            ? 'no images'
            : `only ${total} images, ${keep} kept`,
      details: { images: total, keepImages: keep },
    },
  };
}
