/**
 * The contract every wire view implements, and the request options they share.
 *
 * A view turns a path (root → tip, `Item[]`) plus per-request instructions into one provider request
 * body. Views know nothing of storage: they take items and return plain JSON.
 */
import type { Profile } from '../providers/index.js';
import type { ImageData } from '../transcript/items.js';
import type { WireBodies } from './bodies.js';

/** The four wire formats glyphfold writes. */
export type WireProvider = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini';
export const WIRE_PROVIDERS: readonly WireProvider[] = [
  'anthropic',
  'openai-chat',
  'openai-responses',
  'gemini',
];

/** The provider family a wire format belongs to: reasoning signatures only travel within one family. */
export type ProviderFamily = 'anthropic' | 'openai' | 'gemini';
export const FAMILY_OF: Readonly<Record<WireProvider, ProviderFamily>> = {
  anthropic: 'anthropic',
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  gemini: 'gemini',
};

/** A tool the model may call. `parameters` is a JSON Schema object. */
export interface ToolSpec {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}

/** Counts image tokens for one image; pass `imageTokens` from `providers` bound to a profile. */
export type ImageTokenCounter = (width: number, height: number, options?: { detail?: string }) => number;

/** Per-request instructions and options. Only `model` is required. */
export interface WireRequest {
  model: string;
  /** The system prompt: assembled fresh each turn, never part of the record. */
  system?: string;
  /** Memory the harness carries between sessions; sent after the system prompt as its own block. */
  memory?: string;
  tools?: ToolSpec[];
  maxTokens?: number;
  /**
   * The model's profile (from `providers`). Views read only `vision` from it: a profile without vision
   * makes images travel as a text placeholder instead of pixels.
   */
  profile?: Profile;
  /** OpenAI image `detail`; always sent explicitly. Default `high`. */
  imageDetail?: 'low' | 'high' | 'auto' | 'original';
  /** Anthropic `cache_control` breakpoints (default true). */
  cache?: boolean;
  /**
   * Item id that ends the stable prefix (the part the previous request also sent). Anthropic puts a
   * cache breakpoint on the block this item ends up in. Default: the end of the messages before the
   * last user turn.
   */
  stablePrefixEnd?: string;
  /**
   * OpenAI Responses only: chain onto a stored response. Only items after `after` (the last item that
   * response covered) are sent, with `previous_response_id: id`.
   */
  previousResponse?: { id: string; after: string };
  /** OpenAI Chat: role for the instructions, `system` (default) or `developer`. */
  systemRole?: 'system' | 'developer';
}

/** One thing the repair pass changed in the request (never in the record). */
export interface Repair {
  kind:
    | 'dropped_orphan_result'
    | 'dropped_duplicate_result'
    | 'rekeyed_duplicate_id'
    | 'synthesized_result'
    | 'moved_result'
    | 'dropped_reasoning'
    | 'leading_user_turn';
  /** The item the repair is about (for a synthesized result: the call's item id). */
  itemId?: string;
  callId?: string;
  detail: string;
}

/** One provider's wire result: the exact body to send, typed for `provider`, and what was repaired. */
export interface WireResultOf<P extends WireProvider> {
  provider: P;
  body: WireBodies[P];
  repairs: Repair[];
}

/**
 * What a wire view returns. For a provider named literally it is that provider's result; for a
 * `WireProvider` variable it is a union discriminated by `provider` (`switch (r.provider)` narrows
 * `r.body`).
 */
export type WireResult<P extends WireProvider = WireProvider> = P extends WireProvider
  ? WireResultOf<P>
  : never;

/** An image as it goes out, with where it came from. */
export type WireImage = ImageData;
