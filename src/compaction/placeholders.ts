/**
 * The short texts that stand in for what a free rung cleared. They name what was there (tool, size,
 * item id) so the model knows it existed and can ask for it again; the record keeps the original.
 */
import type { ContextItem, ImageData, Item, ToolResultItem } from '../transcript/items.js';

export const PLACEHOLDER_SOURCE = 'glyphfold:placeholder';

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

/** A tool result whose content was elided. Same id, call id and name: pairing is untouched. */
export function elidedResult(item: ToolResultItem, chars: number, tokens: number): ToolResultItem {
  const text = `[elided by glyphfold: ${item.name} returned ${fmt(chars)} chars (~${fmt(tokens)} tokens), item ${item.id}; run the tool again if you need it]`;
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
