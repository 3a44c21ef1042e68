/**
 * Items: the entries of an agent history (see DESIGN.md, "Vocabulary").
 *
 * An item is immutable once created: there is no API that edits or removes one. Where an item sits in
 * its log is when it happened; `parent` names the item it continues from, which makes the log a tree.
 * This module holds only the data model and its validation; storage lives in `store/`, the tree
 * operations in `tree/`, provider formats in `views/`.
 */

/** Who wrote an item. Only `person` is someone typing. */
export type Author = 'person' | 'surface' | 'model' | 'machinery';
export const AUTHORS: readonly Author[] = ['person', 'surface', 'model', 'machinery'];

export type ItemKind =
  | 'message'
  | 'context'
  | 'reasoning'
  | 'tool_call'
  | 'tool_result'
  | 'image'
  | 'summary'
  | 'digest'
  | 'compaction';
export const ITEM_KINDS: readonly ItemKind[] = [
  'message',
  'context',
  'reasoning',
  'tool_call',
  'tool_result',
  'image',
  'summary',
  'digest',
  'compaction',
];

/** Raster data carried by an image item or inside a tool result. `data` is base64 (no data: prefix). */
export interface ImageData {
  mediaType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  data: string;
  /** Pixel size when known; token estimates need it (importers read it from the image header). */
  width?: number;
  height?: number;
}

export type ContentPart = { type: 'text'; text: string } | ({ type: 'image' } & ImageData);

interface ItemBase {
  /** Unique within its log; becomes part of no file name. */
  id: string;
  /** The item this one continues from; `null` for a root. */
  parent: string | null;
  /** Turn number (1-based) within its log; all items of one turn are committed together. */
  turn: number;
  /** ISO-8601 time of creation. */
  time: string;
  author: Author;
  /** Pinned items are never elided and always kept verbatim in a snapshot's head. */
  pinned?: boolean;
}

/** Text typed by the person or written by the model. */
export interface MessageItem extends ItemBase {
  kind: 'message';
  author: 'person' | 'model';
  text: string;
  /** Opaque provider data that must be sent back verbatim (e.g. Gemini thought signature on a text part). */
  signature?: string;
}

/** Context the client attached (files, IDE state). On the wire it is user content. */
export interface ContextItem extends ItemBase {
  kind: 'context';
  author: 'surface';
  text: string;
  /** Where it came from, e.g. a file path; shown in the screen view's hidden counts. */
  source?: string;
}

/** Model reasoning, kept with its provider signature so it can be passed back exactly. */
export interface ReasoningItem extends ItemBase {
  kind: 'reasoning';
  author: 'model';
  /** Visible reasoning text (may be empty when only an encrypted form exists). */
  text: string;
  /** Which provider family produced it: signatures are only valid when sent back to that family. */
  provider?: 'anthropic' | 'openai' | 'gemini';
  /** Anthropic thinking signature / Gemini thought signature, verbatim. */
  signature?: string;
  /** Anthropic `redacted_thinking.data` or OpenAI Responses `encrypted_content`, verbatim. */
  encrypted?: string;
}

/** A tool call made by the model. `callId` pairs it with its result. */
export interface ToolCallItem extends ItemBase {
  kind: 'tool_call';
  author: 'model';
  callId: string;
  name: string;
  /** Parsed JSON arguments. */
  input: unknown;
  /** Gemini thought signature attached to the functionCall part, verbatim. */
  signature?: string;
  /**
   * The agent of the same conversation whose history this call started (a subagent run, e.g. Claude
   * Code's Task tool): its items live in that agent's own log, not in this one.
   */
  agent?: string;
}

/** What the harness got back from running a tool. Travels to the model as user content. */
export interface ToolResultItem extends ItemBase {
  kind: 'tool_result';
  author: 'machinery';
  callId: string;
  /** Tool name, copied from the call for views that need it (Gemini functionResponse). */
  name: string;
  content: ContentPart[];
  isError?: boolean;
  /** Paths of files the tool touched, as reported by the harness (digests, restore). */
  files?: string[];
}

/** An image outside a tool result: attached by the person or the client, or a screenshot. */
export interface ImageItem extends ItemBase, ImageData {
  kind: 'image';
  author: 'person' | 'surface' | 'machinery';
  /** Optional caption or alt text. */
  text?: string;
}

/** A summary of a stretch of history, written by compaction (machinery) from the record. */
export interface SummaryItem extends ItemBase {
  kind: 'summary';
  author: 'machinery';
  text: string;
  /** First and last item id of the stretch it summarizes. */
  covers?: { from: string; to: string };
}

/** What a rewind abandoned, appended after the rewind target so the model keeps what it learned. */
export interface DigestItem extends ItemBase {
  kind: 'digest';
  author: 'machinery';
  text: string;
  /** The checkpoint label rewound to. */
  checkpoint?: string;
  /** Tip that was abandoned. */
  abandonedTip?: string;
}

/** A record that a compaction happened: what range, which rung, with what parameters. */
export interface CompactionItem extends ItemBase {
  kind: 'compaction';
  author: 'machinery';
  rung: 'elide' | 'shed' | 'snapshot' | 'summarize';
  /** First and last item id the rung rewrote in the request. */
  range: { from: string; to: string };
  /** Everything needed to rebuild the same request byte for byte. */
  params: Record<string, unknown>;
  /** Present for the summarize rung. */
  summary?: string;
}

export type Item =
  | MessageItem
  | ContextItem
  | ReasoningItem
  | ToolCallItem
  | ToolResultItem
  | ImageItem
  | SummaryItem
  | DigestItem
  | CompactionItem;

/** The fields a caller supplies; id, parent, turn and time are filled in by the history. */
export type NewItem = Item extends infer T
  ? T extends Item
    ? Omit<T, 'id' | 'parent' | 'turn' | 'time'>
    : never
  : never;

/** Which authors may write which kinds. */
export const KIND_AUTHORS: Readonly<Record<ItemKind, readonly Author[]>> = {
  message: ['person', 'model'],
  context: ['surface'],
  reasoning: ['model'],
  tool_call: ['model'],
  tool_result: ['machinery'],
  image: ['person', 'surface', 'machinery'],
  summary: ['machinery'],
  digest: ['machinery'],
  compaction: ['machinery'],
};

/** Plain text of an item as a reader would need it (for token estimates, digests, snapshots). */
export function itemText(item: Item): string {
  switch (item.kind) {
    case 'message':
    case 'context':
    case 'reasoning':
    case 'summary':
    case 'digest':
      return item.text;
    case 'tool_call':
      return `${item.name}(${JSON.stringify(item.input)})`;
    case 'tool_result':
      return item.content.map((p) => (p.type === 'text' ? p.text : `[image ${p.mediaType}]`)).join('\n');
    case 'image':
      return item.text ?? `[image ${item.mediaType}]`;
    case 'compaction':
      return item.summary ?? `[compaction ${item.rung} ${item.range.from}..${item.range.to}]`;
  }
}
