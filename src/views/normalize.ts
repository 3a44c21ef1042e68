/**
 * Shared normalisation: one pass from repaired items to provider-neutral turns, used by every wire
 * view and by the token estimate (so the estimate counts exactly what the view sends).
 *
 * Rules that hold for every provider live here:
 * - context, tool results, images, summaries, digests and compaction summaries travel as user content;
 * - summaries, digests and context blocks are wrapped in a defined text wrapper (see `wrap*`);
 * - reasoning is kept only for the family that produced it (signatures are only valid there);
 * - empty text is dropped (Anthropic rejects empty text blocks);
 * - adjacent same-role content is merged into one turn (each view splits again where its format needs).
 */
import type {
  CompactionItem,
  ContentPart,
  DigestItem,
  ImageData,
  Item,
  ReasoningItem,
  SummaryItem,
  ToolCallItem,
  ToolResultItem,
} from '../transcript/items.js';
import type { ProviderFamily } from './types.js';

/** Where a block came from, for token breakdowns. */
export interface Origin {
  itemId: string;
  author: Item['author'];
  kind: Item['kind'];
}

export type Block =
  | { type: 'text'; text: string; origin: Origin; signature?: string }
  | { type: 'image'; image: ImageData; origin: Origin }
  | { type: 'reasoning'; item: ReasoningItem; origin: Origin }
  | { type: 'tool_call'; item: ToolCallItem; origin: Origin }
  | { type: 'tool_result'; item: ToolResultItem; origin: Origin };

export interface Turn {
  role: 'user' | 'assistant';
  blocks: Block[];
}

export interface NormalizeOptions {
  family: ProviderFamily;
  /** False when the target model cannot see images: they become a text placeholder. */
  vision?: boolean;
}

/** What normalisation left out of the wire, by reason (for reports and the screen view). */
export interface NormalizeNotes {
  /** Reasoning items dropped because they came from another family or carry nothing sendable. */
  droppedReasoning: string[];
  /** Compaction markers without a summary (they describe a request, not content). */
  skippedMarkers: string[];
}

function escapeAttr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

function attrs(pairs: Array<[string, string | undefined]>): string {
  return pairs
    .filter((p): p is [string, string] => p[1] !== undefined && p[1] !== '')
    .map(([k, v]) => ` ${k}="${escapeAttr(v)}"`)
    .join('');
}

/** `<context source="…">…</context>`: attached context, which the model should not take as typed. */
export function wrapContext(text: string, source?: string): string {
  return `<context${attrs([['source', source]])}>\n${text}\n</context>`;
}

/** `<summary from="…" to="…">…</summary>`: a summary written by compaction, not by the person. */
export function wrapSummary(item: SummaryItem | CompactionItem): string {
  const text = item.kind === 'summary' ? item.text : (item.summary ?? '');
  const range = item.kind === 'summary' ? item.covers : item.range;
  return `<summary${attrs([
    ['from', range?.from],
    ['to', range?.to],
  ])}>\n${text}\n</summary>`;
}

/** `<digest checkpoint="…">…</digest>`: what a rewind abandoned. */
export function wrapDigest(item: DigestItem): string {
  return `<digest${attrs([['checkpoint', item.checkpoint]])}>\n${item.text}\n</digest>`;
}

/** Placeholder for an image sent to a model without vision. */
export function imagePlaceholder(image: ImageData): string {
  const size = image.width && image.height ? ` ${image.width}x${image.height}` : '';
  return `[image ${image.mediaType}${size} not shown: this model has no vision]`;
}

function origin(item: Item): Origin {
  return { itemId: item.id, author: item.author, kind: item.kind };
}

/** Whether a reasoning item can be sent back to `family` in a form that provider accepts. */
export function reasoningSendable(item: ReasoningItem, family: ProviderFamily): boolean {
  if (item.provider !== family) return false;
  switch (family) {
    case 'anthropic':
      // thinking needs its signature; redacted_thinking needs its data.
      return item.signature !== undefined || item.encrypted !== undefined;
    case 'openai':
      // Only encrypted_content carries the reasoning back; a bare summary is of no use to the model.
      return item.encrypted !== undefined;
    case 'gemini':
      return item.signature !== undefined || item.text !== '';
  }
}

/** Turns a tool result's parts into blocks, honouring vision. */
export function resultParts(parts: readonly ContentPart[], vision: boolean): ContentPart[] {
  return parts
    .map((p): ContentPart | undefined => {
      if (p.type === 'text') return p.text === '' ? undefined : p;
      return vision ? p : { type: 'text', text: imagePlaceholder(p) };
    })
    .filter((p): p is ContentPart => p !== undefined);
}

/** Items (already pairing-repaired) → merged turns. */
export function normalize(
  items: readonly Item[],
  options: NormalizeOptions,
): { turns: Turn[]; notes: NormalizeNotes } {
  const vision = options.vision ?? true;
  const notes: NormalizeNotes = { droppedReasoning: [], skippedMarkers: [] };
  const turns: Turn[] = [];
  const push = (role: Turn['role'], block: Block): void => {
    const last = turns[turns.length - 1];
    if (last && last.role === role) last.blocks.push(block);
    else turns.push({ role, blocks: [block] });
  };
  const text = (role: Turn['role'], value: string, item: Item, signature?: string): void => {
    if (value === '' && signature === undefined) return;
    push(
      role,
      signature === undefined
        ? { type: 'text', text: value, origin: origin(item) }
        : { type: 'text', text: value, origin: origin(item), signature },
    );
  };
  for (const item of items) {
    switch (item.kind) {
      case 'message':
        // A message signature (Gemini thoughtSignature on a text part) means nothing to other families.
        if (item.author === 'model')
          text('assistant', item.text, item, options.family === 'gemini' ? item.signature : undefined);
        else text('user', item.text, item);
        break;
      case 'context':
        text('user', wrapContext(item.text, item.source), item);
        break;
      case 'reasoning':
        if (reasoningSendable(item, options.family))
          push('assistant', { type: 'reasoning', item, origin: origin(item) });
        else notes.droppedReasoning.push(item.id);
        break;
      case 'tool_call':
        push('assistant', { type: 'tool_call', item, origin: origin(item) });
        break;
      case 'tool_result':
        push('user', { type: 'tool_result', item, origin: origin(item) });
        break;
      case 'image':
        if (item.text) text('user', item.text, item);
        if (vision) {
          const image: ImageData = { mediaType: item.mediaType, data: item.data };
          if (item.width !== undefined) image.width = item.width;
          if (item.height !== undefined) image.height = item.height;
          push('user', { type: 'image', image, origin: origin(item) });
        } else text('user', imagePlaceholder(item), item);
        break;
      case 'summary':
        text('user', wrapSummary(item), item);
        break;
      case 'digest':
        text('user', wrapDigest(item), item);
        break;
      case 'compaction':
        if (item.summary !== undefined) text('user', wrapSummary(item), item);
        else notes.skippedMarkers.push(item.id);
        break;
    }
  }
  return { turns, notes };
}

/** Text a provider can take as a tool result body: text parts joined, images noted. */
export function resultText(item: ToolResultItem, parts: readonly ContentPart[]): string {
  const text = parts.map((p) => (p.type === 'text' ? p.text : `[image ${p.mediaType} follows]`)).join('\n');
  return text === '' ? (item.isError ? 'error (no output)' : '(no output)') : text;
}
