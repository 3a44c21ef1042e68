/**
 * The short texts that stand in for what a free rung cleared. They name what was there (tool, size,
 * item id) so the model knows it existed and can ask for it again; the record keeps the original.
 */
import type { ContextItem, ImageData, Item, ToolResultItem } from '../transcript/items.js';

export const PLACEHOLDER_SOURCE = 'glyphfold:placeholder';

/** 12345 → "12,345". (Not toLocaleString: its first call loads ICU data, ~100 ms.) */
export function fmt(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A tool result whose content was elided. Same id, call id and name: pairing is untouched. */
export function elidedResult(item: ToolResultItem): ToolResultItem {
  // Only facts of the item itself, no estimate: a rebuild must give the same bytes whatever the calibration.
  let chars = 0;
  for (const p of item.content) if (p.type === 'text') chars += p.text.length;
  const text = `[elided by glyphfold: ${item.name} returned ${fmt(chars)} chars, item ${item.id}; run the tool again if you need it]`;
  const out: ToolResultItem = { ...item, content: [{ type: 'text', text }] };
  delete out.files;
  return out;
}

export function isElided(item: Item): boolean {
  return (
    item.kind === 'tool_result' &&
    item.content.length === 1 &&
    item.content[0]!.type === 'text' &&
    item.content[0]!.text.startsWith('[elided by glyphfold:')
  );
}

export function imagePlaceholderText(image: ImageData, itemId: string, caption?: string): string {
  const size = image.width && image.height ? ` ${image.width}×${image.height}` : '';
  const kb = Math.round((image.data.length * 3) / 4 / 1024);
  const cap = caption ? ` "${caption.length > 80 ? caption.slice(0, 77) + '...' : caption}"` : '';
  return `[image shed by glyphfold: ${image.mediaType}${size}, ${fmt(kb)} KB, item ${itemId}${cap}]`;
}

/** A tool result with its images replaced by placeholders. */
export function shedResultImages(item: ToolResultItem): ToolResultItem {
  return {
    ...item,
    content: item.content.map((p) =>
      p.type === 'image' ? { type: 'text', text: imagePlaceholderText(p, item.id) } : p,
    ),
  };
}

/**
 * An image item stands in as surface context: the wire carries it as user text, which is where the
 * image sat. Same id, so later rebuilds and the report can name it.
 */
export function shedImageItem(item: Item & { kind: 'image' }): ContextItem {
  return {
    kind: 'context',
    author: 'surface',
    id: item.id,
    parent: item.parent,
    turn: item.turn,
    time: item.time,
    text: imagePlaceholderText(item, item.id, item.text),
    source: PLACEHOLDER_SOURCE,
  };
}
