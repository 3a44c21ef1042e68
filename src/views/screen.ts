/**
 * The screen view: what a chat surface shows a person. Bubbles for what the person typed (and images
 * they attached) and what the model wrote; everything else is hidden and counted, so a UI can say
 * "3 tool calls hidden" where they were.
 */
import type { ImageData, Item } from '../transcript/items.js';

/** Counts of what a screen leaves out, by kind. */
export interface HiddenCounts {
  toolCalls: number;
  toolResults: number;
  /** Context blocks attached by the surface (files, IDE state) and images it or tools attached. */
  context: number;
  reasoning: number;
  /** Summaries, digests and compaction records. */
  summaries: number;
}

export interface Bubble {
  /** The item behind the bubble. */
  id: string;
  who: 'person' | 'model';
  text: string;
  images: ImageData[];
  /** What was hidden between the previous bubble and this one. */
  hiddenBefore: HiddenCounts;
}

export interface ScreenView {
  bubbles: Bubble[];
  /** Everything hidden in the path. */
  hidden: HiddenCounts;
  /** Hidden after the last bubble (e.g. a tool call still running). */
  hiddenAfter: HiddenCounts;
}

function zero(): HiddenCounts {
  return { toolCalls: 0, toolResults: 0, context: 0, reasoning: 0, summaries: 0 };
}

function hiddenKey(item: Item): keyof HiddenCounts | undefined {
  switch (item.kind) {
    case 'tool_call':
      return 'toolCalls';
    case 'tool_result':
      return 'toolResults';
    case 'context':
      return 'context';
    case 'image':
      return item.author === 'person' ? undefined : 'context';
    case 'reasoning':
      return 'reasoning';
    case 'summary':
    case 'digest':
    case 'compaction':
      return 'summaries';
    case 'message':
      return undefined;
  }
}

/** The bubbles a person would see for this path, and counts of what they would not. */
export function screenView(path: readonly Item[]): ScreenView {
  const bubbles: Bubble[] = [];
  const hidden = zero();
  let pending = zero();
  for (const item of path) {
    const key = hiddenKey(item);
    if (key) {
      hidden[key]++;
      pending[key]++;
      continue;
    }
    if (item.kind === 'message') {
      if (item.text.trim() === '') continue; // an empty model message (tool calls only) shows nothing
      bubbles.push({ id: item.id, who: item.author, text: item.text, images: [], hiddenBefore: pending });
      pending = zero();
    } else if (item.kind === 'image') {
      const image: ImageData = { mediaType: item.mediaType, data: item.data };
      if (item.width !== undefined) image.width = item.width;
      if (item.height !== undefined) image.height = item.height;
      const last = bubbles[bubbles.length - 1];
      // An image the person attached joins their bubble when nothing hidden came between.
      if (last && last.who === 'person' && Object.values(pending).every((n) => n === 0))
        last.images.push(image);
      else {
        bubbles.push({
          id: item.id,
          who: 'person',
          text: item.text ?? '',
          images: [image],
          hiddenBefore: pending,
        });
        pending = zero();
      }
    }
  }
  return { bubbles, hidden, hiddenAfter: pending };
}

const LABELS: Array<[keyof HiddenCounts, string, string]> = [
  ['toolCalls', 'tool call', 'tool calls'],
  ['toolResults', 'tool result', 'tool results'],
  ['context', 'context block', 'context blocks'],
  ['reasoning', 'reasoning block', 'reasoning blocks'],
  ['summaries', 'summary', 'summaries'],
];

/** "2 tool calls, 1 tool result hidden", or '' when nothing is hidden. */
export function describeHidden(counts: HiddenCounts): string {
  const parts = LABELS.filter(([k]) => counts[k] > 0).map(
    ([k, one, many]) => `${counts[k]} ${counts[k] === 1 ? one : many}`,
  );
  return parts.length > 0 ? `${parts.join(', ')} hidden` : '';
}

/** The screen view as plain text, as a person would read it. */
export function formatScreen(view: ScreenView): string {
  const out: string[] = [];
  const note = (c: HiddenCounts): void => {
    const d = describeHidden(c);
    if (d) out.push(`    · ${d} ·`, '');
  };
  for (const b of view.bubbles) {
    note(b.hiddenBefore);
    out.push(b.who === 'person' ? 'You:' : 'Model:');
    if (b.text !== '') out.push(...b.text.split('\n').map((l) => `  ${l}`));
    for (const img of b.images)
      out.push(`  [image ${img.mediaType}${img.width && img.height ? ` ${img.width}x${img.height}` : ''}]`);
    out.push('');
  }
  note(view.hiddenAfter);
  return out.join('\n');
}
