/** Turns a posted transcript into the text a snapshot page holds. */
import { itemText, type Item } from '../transcript/items.js';

/**
 * One block per item: a header naming turn, author and kind (so a reader of the page can tell who
 * wrote what, which the wire loses), then the item's text. Images are named, never inlined.
 */
export function transcriptText(items: readonly Item[]): string {
  return items
    .map((item) => {
      const label = item.kind === 'tool_call' || item.kind === 'tool_result' ? ` ${item.name}` : '';
      return `[turn ${item.turn}] ${item.author} ${item.kind}${label}:\n${itemText(item)}`;
    })
    .join('\n\n');
}
