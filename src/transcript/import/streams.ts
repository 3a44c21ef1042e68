/**
 * Raw provider stream events → the reply they spell → items. One small accumulator per provider:
 *
 *   const acc = anthropicStream();
 *   for await (const event of await client.messages.create({ ...body, stream: true })) acc.push(event);
 *   for (const item of acc.items()) history.append(item);
 *
 * Each folds the events into the reply the non-streaming API returns (a `Message`, a `ChatCompletion`,
 * a Responses `Response`, a `GenerateContentResponse`) and hands it to the non-streaming helper of
 * `responses.ts`, so a streamed and a non-streamed reply give the same items by construction; what is
 * tested is that the fold rebuilds the reply (against the SDKs' own accumulators).
 *
 * Pure and edge-safe: no I/O, no Node module, no SDK at run time. Events are typed structurally (the
 * fields read here) so that both SDK majors' event types, and plain `JSON.parse` of the SSE data, fit
 * without making the SDKs (optional peers) a compile-time need of every consumer.
 *
 * Order is checked: a delta for a block or output item that was never opened, or after it closed, an
 * event after the end, an unknown event type: each throws a `StreamEventError` naming the event's
 * type, its position in the stream and the index it named. A stream that ended early (no
 * `message_stop`, no `finish_reason`, no `response.completed`) makes `items()` throw an
 * `IncompleteStreamError`; `items({ partial: true })` returns what arrived (see `StreamAccumulator`).
 */
import type { NewItem } from '../items.js';
import { isRecord, typeName } from './build.js';
import {
  anthropicResponseItems,
  geminiResponseItems,
  openaiChatResponseItems,
  openaiResponsesItems,
} from './responses.js';

/** Folds one provider's raw stream events; `R` is the reply the non-streaming API returns. */
export interface StreamAccumulator<E, R> {
  /** Fold one event (as the SDK yields it, or `JSON.parse` of one SSE `data:` line). */
  push(event: E): void;
  /** True once the provider's end event arrived (`message_stop`, every choice's `finish_reason`, …). */
  readonly done: boolean;
  /** How many events were pushed. */
  readonly events: number;
  /**
   * The reply as the non-streaming API would have returned it. Throws `IncompleteStreamError` before
   * `done`, unless `partial`: then what arrived so far, open blocks included (a tool call's unfinished
   * JSON arguments are kept as their raw string).
   */
  reply(options?: { partial?: boolean }): R;
  /** `reply()` → items, through the non-streaming helper (same options). */
  items(options?: { partial?: boolean }): NewItem[];
}

/** An event that does not fit where it came: unknown, out of order, or naming a block never opened. */
export class StreamEventError extends Error {
  override name = 'StreamEventError';
}

/** `items()` / `reply()` on a stream that has not ended (the connection dropped, or it was cut). */
export class IncompleteStreamError extends Error {
  override name = 'IncompleteStreamError';
}

/** What every accumulator shares: counting, the end, and errors that say where. */
abstract class Fold<E, R> implements StreamAccumulator<E, R> {
  done = false;
  events = 0;
  protected last = 'none';
  constructor(
    protected readonly who: string,
    private readonly endEvent: string,
    /** The non-streaming helper of `responses.ts` that turns the reply into items. */
    private readonly toItems: (reply: R) => NewItem[],
  ) {}

  push(event: E): void {
    const at = this.events++;
    const type = this.describe(event, at);
    if (this.done) throw this.error(at, type, `arrived after the stream ended (${this.endEvent})`);
    this.last = type;
    this.fold(event, at, type);
  }

  reply(options?: { partial?: boolean }): R {
    if (!this.done && !options?.partial)
      throw new IncompleteStreamError(
        `${this.who}: the stream has not ended: ${this.events} events, the last ${this.last}, no ${this.endEvent} ` +
          `(pass { partial: true } for what arrived)`,
      );
    return this.build();
  }

  items(options?: { partial?: boolean }): NewItem[] {
    return this.toItems(this.reply(options));
  }

  /** The event's name for messages; throws when it is not an object of the expected shape. */
  protected abstract describe(event: E, at: number): string;
  protected abstract fold(event: E, at: number, type: string): void;
  protected abstract build(): R;

  protected error(at: number, type: string, what: string): StreamEventError {
    return new StreamEventError(`${this.who}: event ${at} (${type}) ${what}`);
  }
}

function parseJson(text: string, onError: (message: string) => Error): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw onError((error as Error).message);
  }
}

// ─── Anthropic Messages ──────────────────────────────────────────────────────────────────────────

/** An Anthropic raw stream event (`RawMessageStreamEvent`, what `messages.create({ stream: true })` yields). */
export interface AnthropicStreamEvent {
  readonly type: string;
}

/** The `Message` a stream spells (the fields streamed; the rest of `message_start` kept as sent). */
export interface AnthropicStreamMessage {
  [key: string]: unknown;
  content: Array<Record<string, unknown>>;
  stop_reason?: unknown;
  usage?: Record<string, unknown>;
}

/** Blocks whose `input` streams as partial JSON (`input_json_delta`). */
const JSON_INPUT_BLOCKS = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);

class AnthropicFold extends Fold<AnthropicStreamEvent, AnthropicStreamMessage> {
  private message: AnthropicStreamMessage | undefined;
  /** Per content index: its input JSON so far (tool blocks), and whether `content_block_stop` came. */
  private open: Array<{ json: string | undefined; stopped: boolean }> = [];

  constructor() {
    super('anthropicStream', 'message_stop', anthropicResponseItems);
  }

  protected describe(event: AnthropicStreamEvent, at: number): string {
    if (!isRecord(event) || typeof event.type !== 'string')
      throw new StreamEventError(
        `anthropicStream: event ${at}: expected an object with a string type, found ${typeName(event)}`,
      );
    const e = event as Record<string, unknown>;
    return typeof e.index === 'number' ? `${event.type} at index ${e.index}` : event.type;
  }

  protected fold(event: AnthropicStreamEvent, at: number, type: string): void {
    const e = event as unknown as Record<string, unknown>;
    if (e.type === 'ping') return;
    if (e.type === 'error') {
      const err = isRecord(e.error) ? e.error : {};
      throw this.error(at, type, `is the provider's error ${String(err.type)}: ${String(err.message)}`);
    }
    if (e.type === 'message_start') {
      if (this.message) throw this.error(at, type, 'arrived twice (a second message in one stream)');
      if (!isRecord(e.message) || !Array.isArray(e.message.content))
        throw this.error(at, type, 'has no message with a content array');
      this.message = structuredClone(e.message) as AnthropicStreamMessage;
      for (const _ of this.message.content) this.open.push({ json: undefined, stopped: true });
      return;
    }
    const message = this.message;
    if (!message) throw this.error(at, type, 'arrived before message_start');
    switch (e.type) {
      case 'content_block_start': {
        const index = this.index(e, at, type);
        if (index !== message.content.length)
          throw this.error(at, type, `opened out of order: expected index ${message.content.length}`);
        if (!isRecord(e.content_block) || typeof e.content_block.type !== 'string')
          throw this.error(at, type, 'has no content_block with a type');
        const block = structuredClone(e.content_block);
        message.content.push(block);
        this.open.push({
          json: JSON_INPUT_BLOCKS.has(block.type as string) ? '' : undefined,
          stopped: false,
        });
        return;
      }
      case 'content_block_delta': {
        const index = this.index(e, at, type);
        const block = this.openBlock(index, at, type);
        const delta = isRecord(e.delta) ? e.delta : {};
        const want = (blockType: string, field: string, value: unknown): string => {
          if (block.type !== blockType)
            throw this.error(at, type, `${String(delta.type)} for a ${String(block.type)} block`);
          if (typeof value !== 'string')
            throw this.error(at, type, `${String(delta.type)} without a string ${field}`);
          return value;
        };
        switch (delta.type) {
          case 'text_delta':
            block.text = String(block.text ?? '') + want('text', 'text', delta.text);
            return;
          case 'thinking_delta':
            block.thinking = String(block.thinking ?? '') + want('thinking', 'thinking', delta.thinking);
            return;
          case 'signature_delta':
            // The whole signature, sent once before the block stops.
            block.signature = want('thinking', 'signature', delta.signature);
            return;
          case 'citations_delta':
            if (block.type !== 'text')
              throw this.error(at, type, `citations_delta for a ${String(block.type)} block`);
            block.citations = [
              ...(Array.isArray(block.citations) ? block.citations : []),
              structuredClone(delta.citation),
            ];
            return;
          case 'input_json_delta': {
            const slot = this.open[index]!;
            if (slot.json === undefined)
              throw this.error(at, type, `input_json_delta for a ${String(block.type)} block`);
            if (typeof delta.partial_json !== 'string')
              throw this.error(at, type, 'input_json_delta without a string partial_json');
            slot.json += delta.partial_json;
            return;
          }
          default:
            throw this.error(
              at,
              type,
              `has an unknown delta type ${JSON.stringify(delta.type)}; expected text_delta, thinking_delta, ` +
                'signature_delta, citations_delta or input_json_delta',
            );
        }
      }
      case 'content_block_stop': {
        const index = this.index(e, at, type);
        this.openBlock(index, at, type);
        this.settleInput(index, (m) =>
          this.error(at, type, `closes a tool input that is not valid JSON (${m})`),
        );
        this.open[index]!.stopped = true;
        return;
      }
      case 'message_delta': {
        const delta = isRecord(e.delta) ? e.delta : {};
        for (const [k, v] of Object.entries(delta)) if (v !== undefined) message[k] = structuredClone(v);
        // Usage counters are whole-message totals: overwrite those sent, keep the others.
        if (isRecord(e.usage)) {
          const usage = isRecord(message.usage) ? message.usage : (message.usage = {});
          for (const [k, v] of Object.entries(e.usage))
            if (v !== null && v !== undefined) usage[k] = structuredClone(v);
        }
        return;
      }
      case 'message_stop': {
        const unclosed = this.open.findIndex((s) => !s.stopped);
        if (unclosed >= 0) throw this.error(at, type, `arrived with block ${unclosed} still open`);
        this.done = true;
        return;
      }
      default:
        throw this.error(
          at,
          type,
          'is not a Messages stream event; expected message_start, content_block_start, content_block_delta, ' +
            'content_block_stop, message_delta, message_stop, ping or error',
        );
    }
  }

  protected build(): AnthropicStreamMessage {
    if (!this.message) return { type: 'message', role: 'assistant', content: [] };
    const message = structuredClone(this.message);
    // A partial reply: a tool block still open keeps its input as the JSON text so far, if unparseable.
    this.open.forEach((slot, i) => {
      if (slot.stopped || slot.json === undefined || slot.json === '') return;
      try {
        message.content[i]!.input = JSON.parse(slot.json) as unknown;
      } catch {
        message.content[i]!.input = slot.json;
      }
    });
    return message;
  }

  private index(e: Record<string, unknown>, at: number, type: string): number {
    if (typeof e.index !== 'number' || !Number.isInteger(e.index) || e.index < 0)
      throw this.error(at, type, `has no content index (found ${typeName(e.index)})`);
    return e.index;
  }

  private openBlock(index: number, at: number, type: string): Record<string, unknown> {
    const block = this.message!.content[index];
    const slot = this.open[index];
    if (!block || !slot)
      throw this.error(at, type, `names block ${index}, which no content_block_start opened`);
    if (slot.stopped)
      throw this.error(at, type, `names block ${index}, which content_block_stop already closed`);
    return block;
  }

  /** A tool block's streamed JSON → its `input` (no deltas: the `input` of content_block_start stays). */
  private settleInput(index: number, onError: (message: string) => Error): void {
    const slot = this.open[index]!;
    if (slot.json === undefined || slot.json === '') return;
    this.message!.content[index]!.input = parseJson(slot.json, onError);
  }
}

/** Folds Anthropic Messages raw stream events (`messages.create({ …, stream: true })`) into a `Message`. */
export function anthropicStream(): StreamAccumulator<AnthropicStreamEvent, AnthropicStreamMessage> {
  return new AnthropicFold();
}

// ─── OpenAI Chat Completions ─────────────────────────────────────────────────────────────────────

/** A `ChatCompletionChunk` (what `chat.completions.create({ stream: true })` yields). */
export interface OpenAIChatChunk {
  readonly choices: readonly unknown[];
}

/** The `ChatCompletion` the chunks spell. */
export interface OpenAIChatStreamCompletion {
  [key: string]: unknown;
  choices: Array<{ index: number; message: Record<string, unknown>; finish_reason: unknown }>;
  usage?: unknown;
}

interface ChatChoice {
  index: number;
  content: string | null;
  refusal: string | null;
  reasoning: string | undefined;
  calls: Array<{ id: string; type: string; name: string; arguments: string }>;
  finish: unknown;
}

class OpenAIChatFold extends Fold<OpenAIChatChunk, OpenAIChatStreamCompletion> {
  private head: Record<string, unknown> | undefined;
  private choices = new Map<number, ChatChoice>();
  private usage: unknown;

  constructor() {
    super('openaiChatStream', 'finish_reason', openaiChatResponseItems);
  }

  protected describe(chunk: OpenAIChatChunk, at: number): string {
    if (!isRecord(chunk) || !Array.isArray(chunk.choices))
      throw new StreamEventError(
        `openaiChatStream: chunk ${at}: expected a ChatCompletionChunk with a choices array, found ` +
          (isRecord(chunk) ? `keys ${Object.keys(chunk).join(', ') || '(none)'}` : typeName(chunk)),
      );
    return 'chunk';
  }

  // Chunks after every choice finished are allowed when they carry no choice: the usage chunk.
  override push(chunk: OpenAIChatChunk): void {
    if (this.done && isRecord(chunk) && Array.isArray(chunk.choices) && chunk.choices.length === 0) {
      this.events++;
      this.take(chunk as unknown as Record<string, unknown>);
      return;
    }
    super.push(chunk);
  }

  protected fold(chunk: OpenAIChatChunk, at: number, type: string): void {
    const c = chunk as unknown as Record<string, unknown>;
    if (c.object !== undefined && c.object !== 'chat.completion.chunk')
      throw this.error(at, type, `is a ${JSON.stringify(c.object)}, expected chat.completion.chunk`);
    this.take(c);
    chunk.choices.forEach((raw: unknown, k: number) => {
      const where = `choices[${k}]`;
      if (!isRecord(raw)) throw this.error(at, type, `${where} is ${typeName(raw)}, expected an object`);
      const index = typeof raw.index === 'number' ? raw.index : k;
      let choice = this.choices.get(index);
      if (!choice) {
        choice = { index, content: null, refusal: null, reasoning: undefined, calls: [], finish: null };
        this.choices.set(index, choice);
      }
      if (choice.finish !== null)
        throw this.error(at, type, `${where}: choice ${index} continues after its finish_reason`);
      const delta = isRecord(raw.delta) ? raw.delta : {};
      if (typeof delta.content === 'string') choice.content = (choice.content ?? '') + delta.content;
      if (typeof delta.refusal === 'string') choice.refusal = (choice.refusal ?? '') + delta.refusal;
      // Some compatible servers stream reasoning beside the content; the importer reads it.
      const thought = typeof delta.reasoning_content === 'string' ? delta.reasoning_content : undefined;
      if (thought !== undefined) choice.reasoning = (choice.reasoning ?? '') + thought;
      if (delta.tool_calls !== undefined && delta.tool_calls !== null) {
        if (!Array.isArray(delta.tool_calls))
          throw this.error(at, type, `${where}.delta.tool_calls is not an array`);
        delta.tool_calls.forEach((call: unknown, j: number) =>
          this.call(choice, call, `${where}.delta.tool_calls[${j}]`, at, type),
        );
      }
      if (raw.finish_reason !== null && raw.finish_reason !== undefined) choice.finish = raw.finish_reason;
    });
    if (this.choices.size > 0 && [...this.choices.values()].every((ch) => ch.finish !== null))
      this.done = true;
  }

  /** One tool call fragment: the first for an index opens it (id, name), the rest append arguments. */
  private call(choice: ChatChoice, raw: unknown, where: string, at: number, type: string): void {
    if (!isRecord(raw) || typeof raw.index !== 'number') throw this.error(at, type, `${where} has no index`);
    const fn = isRecord(raw.function) ? raw.function : {};
    let call = choice.calls[raw.index];
    if (!call) {
      if (raw.index !== choice.calls.length)
        throw this.error(
          at,
          type,
          `${where} opens tool call ${raw.index}, expected index ${choice.calls.length}`,
        );
      if (typeof raw.id !== 'string' || typeof fn.name !== 'string')
        throw this.error(at, type, `${where} opens tool call ${raw.index} without an id and a function name`);
      call = {
        id: raw.id,
        type: typeof raw.type === 'string' ? raw.type : 'function',
        name: '',
        arguments: '',
      };
      choice.calls.push(call);
    } else if (typeof raw.id === 'string' && raw.id !== '' && raw.id !== call.id) {
      throw this.error(at, type, `${where} names tool call ${raw.index} as ${raw.id}, opened as ${call.id}`);
    }
    if (typeof fn.name === 'string' && fn.name !== '') call.name = fn.name;
    if (typeof fn.arguments === 'string') call.arguments += fn.arguments;
  }

  private take(c: Record<string, unknown>): void {
    const { choices: _choices, usage, ...head } = c;
    this.head ??= head;
    if (usage !== undefined && usage !== null) this.usage = structuredClone(usage);
  }

  protected build(): OpenAIChatStreamCompletion {
    const choices = [...this.choices.values()]
      .sort((a, b) => a.index - b.index)
      .map((ch) => {
        const message: Record<string, unknown> = {
          role: 'assistant',
          content: ch.content,
          refusal: ch.refusal,
        };
        if (ch.reasoning !== undefined) message.reasoning_content = ch.reasoning;
        if (ch.calls.length)
          message.tool_calls = ch.calls.map((call) => ({
            id: call.id,
            type: call.type,
            function: { name: call.name, arguments: call.arguments },
          }));
        return { index: ch.index, message, finish_reason: ch.finish, logprobs: null };
      });
    const completion: OpenAIChatStreamCompletion = {
      ...structuredClone(this.head ?? {}),
      object: 'chat.completion',
      choices,
    };
    if (this.usage !== undefined) completion.usage = this.usage;
    return completion;
  }
}

/**
 * Folds Chat Completions chunks (`chat.completions.create({ …, stream: true })`) into a
 * `ChatCompletion`: content, refusal and tool calls (by index, arguments in pieces) per choice, the
 * `finish_reason`, and the usage chunk (`stream_options: { include_usage: true }`) that may follow it.
 */
export function openaiChatStream(): StreamAccumulator<OpenAIChatChunk, OpenAIChatStreamCompletion> {
  return new OpenAIChatFold();
}

// ─── OpenAI Responses ────────────────────────────────────────────────────────────────────────────

/** A Responses stream event (`ResponseStreamEvent`, what `responses.create({ stream: true })` yields). */
export interface OpenAIResponsesStreamEvent {
  readonly type: string;
}

/** The `Response` the events spell. */
export interface OpenAIResponsesStreamResponse {
  [key: string]: unknown;
  output: Array<Record<string, unknown>>;
}

/**
 * Events of built-in tools' items (web search, file search, code interpreter, image generation, MCP):
 * their item's final state comes whole in `response.output_item.done`, so they are checked for order
 * and otherwise passed over.
 */
const TOOL_EVENT_PREFIXES = [
  'response.web_search_call.',
  'response.file_search_call.',
  'response.code_interpreter_call',
  'response.image_generation_call.',
  'response.mcp_call',
  'response.mcp_list_tools.',
  'response.custom_tool_call_input.',
];

class OpenAIResponsesFold extends Fold<OpenAIResponsesStreamEvent, OpenAIResponsesStreamResponse> {
  private response: OpenAIResponsesStreamResponse | undefined;
  private closed: boolean[] = [];

  constructor() {
    super('openaiResponsesStream', 'response.completed', openaiResponsesItems);
  }

  protected describe(event: OpenAIResponsesStreamEvent, at: number): string {
    if (!isRecord(event) || typeof event.type !== 'string')
      throw new StreamEventError(
        `openaiResponsesStream: event ${at}: expected an object with a string type, found ${typeName(event)}`,
      );
    const e = event as Record<string, unknown>;
    return typeof e.output_index === 'number'
      ? `${event.type} at output_index ${e.output_index}`
      : event.type;
  }

  protected fold(event: OpenAIResponsesStreamEvent, at: number, type: string): void {
    const e = event as unknown as Record<string, unknown>;
    const name = e.type as string;
    if (name === 'error')
      throw this.error(at, type, `is the provider's error ${String(e.code ?? '')}: ${String(e.message)}`);
    if (name === 'response.created') {
      if (this.response) throw this.error(at, type, 'arrived twice');
      this.response = this.lifecycle(e, at, type, []);
      return;
    }
    const response = this.response;
    if (!response) throw this.error(at, type, 'arrived before response.created');
    switch (name) {
      case 'response.in_progress':
      case 'response.queued':
        this.response = this.lifecycle(e, at, type, response.output);
        return;
      case 'response.completed':
      case 'response.incomplete': {
        const open = this.closed.findIndex((c) => !c);
        if (open >= 0) throw this.error(at, type, `arrived with output item ${open} still open`);
        this.response = this.lifecycle(e, at, type, response.output);
        this.done = true;
        return;
      }
      case 'response.failed': {
        const r = isRecord(e.response) ? e.response : {};
        const err = isRecord(r.error) ? r.error : {};
        throw this.error(at, type, `says the response failed: ${String(err.code)}: ${String(err.message)}`);
      }
      case 'response.output_item.added': {
        const index = this.outputIndex(e, at, type);
        if (index !== response.output.length)
          throw this.error(at, type, `opened out of order: expected output_index ${response.output.length}`);
        if (!isRecord(e.item) || typeof e.item.type !== 'string')
          throw this.error(at, type, 'has no item with a type');
        response.output.push(structuredClone(e.item));
        this.closed.push(false);
        return;
      }
      case 'response.output_item.done': {
        const index = this.outputIndex(e, at, type);
        this.item(index, at, type);
        if (!isRecord(e.item) || typeof e.item.type !== 'string')
          throw this.error(at, type, 'has no item with a type');
        // The finished item, whole (with the reasoning's encrypted_content when asked for): it wins.
        response.output[index] = structuredClone(e.item);
        this.closed[index] = true;
        return;
      }
      case 'response.content_part.added': {
        const item = this.item(this.outputIndex(e, at, type), at, type);
        const part = isRecord(e.part) ? structuredClone(e.part) : undefined;
        if (!part) throw this.error(at, type, 'has no part');
        const parts = Array.isArray(item.content) ? (item.content as unknown[]) : (item.content = []);
        if (e.content_index !== parts.length)
          throw this.error(
            at,
            type,
            `opens content part ${String(e.content_index)}, expected ${parts.length}`,
          );
        parts.push(part);
        return;
      }
      case 'response.content_part.done': {
        const item = this.item(this.outputIndex(e, at, type), at, type);
        const part = this.part(item, 'content', e.content_index, at, type);
        if (isRecord(e.part)) Object.assign(part, structuredClone(e.part));
        return;
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta':
      case 'response.reasoning_text.delta': {
        const field = name === 'response.refusal.delta' ? 'refusal' : 'text';
        const want = name === 'response.reasoning_text.delta' ? 'reasoning' : 'message';
        const item = this.item(this.outputIndex(e, at, type), at, type, want);
        const part = this.part(item, 'content', e.content_index, at, type);
        part[field] = String(part[field] ?? '') + this.text(e.delta, 'delta', at, type);
        return;
      }
      case 'response.output_text.done':
      case 'response.refusal.done':
      case 'response.reasoning_text.done': {
        const field = name === 'response.refusal.done' ? 'refusal' : 'text';
        const item = this.item(this.outputIndex(e, at, type), at, type);
        const part = this.part(item, 'content', e.content_index, at, type);
        part[field] = this.text(e[field], field, at, type);
        return;
      }
      case 'response.output_text.annotation.added': {
        const item = this.item(this.outputIndex(e, at, type), at, type, 'message');
        const part = this.part(item, 'content', e.content_index, at, type);
        const annotations = Array.isArray(part.annotations) ? part.annotations : (part.annotations = []);
        (annotations as unknown[])[Number(e.annotation_index ?? annotations.length)] = structuredClone(
          e.annotation,
        );
        return;
      }
      case 'response.function_call_arguments.delta': {
        const item = this.item(this.outputIndex(e, at, type), at, type, 'function_call');
        item.arguments = String(item.arguments ?? '') + this.text(e.delta, 'delta', at, type);
        return;
      }
      case 'response.function_call_arguments.done': {
        const item = this.item(this.outputIndex(e, at, type), at, type, 'function_call');
        item.arguments = this.text(e.arguments, 'arguments', at, type);
        return;
      }
      case 'response.reasoning_summary_part.added': {
        const item = this.item(this.outputIndex(e, at, type), at, type, 'reasoning');
        const summary = Array.isArray(item.summary) ? (item.summary as unknown[]) : (item.summary = []);
        if (e.summary_index !== summary.length)
          throw this.error(
            at,
            type,
            `opens summary part ${String(e.summary_index)}, expected ${summary.length}`,
          );
        summary.push(isRecord(e.part) ? structuredClone(e.part) : { type: 'summary_text', text: '' });
        return;
      }
      case 'response.reasoning_summary_part.done':
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_summary_text.done': {
        const item = this.item(this.outputIndex(e, at, type), at, type, 'reasoning');
        const part = this.part(item, 'summary', e.summary_index, at, type);
        if (name.endsWith('part.done')) {
          if (isRecord(e.part)) Object.assign(part, structuredClone(e.part));
        } else if (name.endsWith('delta'))
          part.text = String(part.text ?? '') + this.text(e.delta, 'delta', at, type);
        else part.text = this.text(e.text, 'text', at, type);
        return;
      }
      default:
        if (TOOL_EVENT_PREFIXES.some((p) => name.startsWith(p))) {
          this.item(this.outputIndex(e, at, type), at, type);
          return;
        }
        throw this.error(
          at,
          type,
          'is not a Responses stream event this fold knows (lifecycle, output_item, content_part, output_text, ' +
            'refusal, function_call_arguments, reasoning_summary_*, reasoning_text, built-in tool events)',
        );
    }
  }

  protected build(): OpenAIResponsesStreamResponse {
    return structuredClone(this.response ?? { object: 'response', output: [] });
  }

  /** A lifecycle event's response, with the output folded so far (theirs is empty until the end). */
  private lifecycle(
    e: Record<string, unknown>,
    at: number,
    type: string,
    output: Array<Record<string, unknown>>,
  ): OpenAIResponsesStreamResponse {
    if (!isRecord(e.response)) throw this.error(at, type, 'has no response object');
    return { ...structuredClone(e.response), output };
  }

  private outputIndex(e: Record<string, unknown>, at: number, type: string): number {
    if (typeof e.output_index !== 'number' || !Number.isInteger(e.output_index) || e.output_index < 0)
      throw this.error(at, type, `has no output_index (found ${typeName(e.output_index)})`);
    return e.output_index;
  }

  private item(index: number, at: number, type: string, want?: string): Record<string, unknown> {
    const item = this.response!.output[index];
    if (!item)
      throw this.error(at, type, `names output item ${index}, which no response.output_item.added opened`);
    if (this.closed[index])
      throw this.error(at, type, `names output item ${index}, which response.output_item.done closed`);
    if (want !== undefined && item.type !== want)
      throw this.error(at, type, `is for a ${want} item, output item ${index} is a ${String(item.type)}`);
    return item;
  }

  private part(
    item: Record<string, unknown>,
    list: 'content' | 'summary',
    index: unknown,
    at: number,
    type: string,
  ): Record<string, unknown> {
    const parts = item[list];
    const part = Array.isArray(parts) && typeof index === 'number' ? (parts[index] as unknown) : undefined;
    if (!isRecord(part))
      throw this.error(at, type, `names ${list} part ${String(index)}, which was never added`);
    return part;
  }

  private text(value: unknown, field: string, at: number, type: string): string {
    if (typeof value !== 'string')
      throw this.error(at, type, `has no string ${field} (found ${typeName(value)})`);
    return value;
  }
}

/**
 * Folds Responses stream events (`responses.create({ …, stream: true })`) into a `Response`: each
 * output item from `response.output_item.added`, its deltas, then the whole item of
 * `response.output_item.done` (which carries a reasoning item's `encrypted_content`); the response's
 * own fields (usage, status) from `response.completed` or `response.incomplete`.
 */
export function openaiResponsesStream(): StreamAccumulator<
  OpenAIResponsesStreamEvent,
  OpenAIResponsesStreamResponse
> {
  return new OpenAIResponsesFold();
}

// ─── Gemini ──────────────────────────────────────────────────────────────────────────────────────

/** One chunk of `streamGenerateContent` (a `GenerateContentResponse`; REST `alt=sse` data lines). */
export interface GeminiStreamChunk {
  readonly candidates?: readonly unknown[];
}

/** The `GenerateContentResponse` the chunks spell. */
export interface GeminiStreamResponse {
  [key: string]: unknown;
  candidates: Array<{
    index: number;
    content: { role: string; parts: Array<Record<string, unknown>> };
    finishReason?: unknown;
  }>;
}

interface GeminiCandidate {
  index: number;
  parts: Array<Record<string, unknown>>;
  finish: unknown;
  rest: Record<string, unknown>;
}

class GeminiFold extends Fold<GeminiStreamChunk, GeminiStreamResponse> {
  private candidates = new Map<number, GeminiCandidate>();
  private rest: Record<string, unknown> = {};

  constructor() {
    super('geminiStream', 'finishReason', geminiResponseItems);
  }

  protected describe(chunk: GeminiStreamChunk, at: number): string {
    if (!isRecord(chunk))
      throw new StreamEventError(
        `geminiStream: chunk ${at}: expected a GenerateContentResponse object, found ${typeName(chunk)}`,
      );
    return 'chunk';
  }

  // After every candidate finished, a chunk with no candidates (usage totals alone) is still taken.
  override push(chunk: GeminiStreamChunk): void {
    if (this.done && isRecord(chunk) && chunk.candidates === undefined && !isRecord(chunk.error)) {
      this.events++;
      Object.assign(this.rest, structuredClone(chunk));
      return;
    }
    super.push(chunk);
  }

  protected fold(chunk: GeminiStreamChunk, at: number, type: string): void {
    const c = chunk as unknown as Record<string, unknown>;
    if (isRecord(c.error))
      throw this.error(
        at,
        type,
        `is the provider's error ${String(c.error.status ?? c.error.code)}: ${String(c.error.message)}`,
      );
    const { candidates, ...rest } = c;
    // usageMetadata and the like are running totals: the last chunk's win.
    Object.assign(this.rest, structuredClone(rest));
    if (
      isRecord(c.promptFeedback) &&
      c.promptFeedback.blockReason !== undefined &&
      candidates === undefined
    ) {
      this.done = true; // the prompt was blocked: a reply with no candidates
      return;
    }
    if (candidates === undefined) return;
    if (!Array.isArray(candidates))
      throw this.error(at, type, `has candidates of type ${typeName(candidates)}, expected an array`);
    candidates.forEach((raw: unknown, k: number) => {
      if (!isRecord(raw))
        throw this.error(at, type, `candidates[${k}] is ${typeName(raw)}, expected an object`);
      const index = typeof raw.index === 'number' ? raw.index : k;
      let cand = this.candidates.get(index);
      if (!cand) this.candidates.set(index, (cand = { index, parts: [], finish: undefined, rest: {} }));
      const { content, finishReason, index: _index, ...more } = raw;
      Object.assign(cand.rest, structuredClone(more));
      const parts = isRecord(content) ? content.parts : undefined;
      if (parts !== undefined) {
        if (!Array.isArray(parts))
          throw this.error(at, type, `candidates[${k}].content.parts is not an array`);
        if (parts.length && cand.finish !== undefined)
          throw this.error(at, type, `candidate ${index} continues after its finishReason`);
        parts.forEach((part: unknown, j: number) =>
          this.part(cand, part, `candidates[${k}].content.parts[${j}]`, at, type),
        );
      }
      if (finishReason !== undefined && finishReason !== null) cand.finish = finishReason;
    });
    if (this.candidates.size > 0 && [...this.candidates.values()].every((cd) => cd.finish !== undefined))
      this.done = true;
  }

  /**
   * One streamed part. Text comes in pieces: a piece continues the text part before it when both are
   * thought or both are not, and that part has no signature yet or the piece brings none; a signature
   * arriving on an empty piece (where streams put it) attaches to the text before it. Function calls
   * arrive whole, one part each.
   */
  private part(cand: GeminiCandidate, raw: unknown, where: string, at: number, type: string): void {
    if (!isRecord(raw)) throw this.error(at, type, `${where} is ${typeName(raw)}, expected an object`);
    const prev = cand.parts[cand.parts.length - 1];
    const signature = typeof raw.thoughtSignature === 'string' ? raw.thoughtSignature : undefined;
    const isText =
      typeof raw.text === 'string' ||
      (raw.text === undefined && raw.functionCall === undefined && signature !== undefined);
    if (!isText) {
      if (!isRecord(raw.functionCall))
        throw this.error(
          at,
          type,
          `${where} has none of text, thought, functionCall (found ${Object.keys(raw).join(', ')})`,
        );
      cand.parts.push(structuredClone(raw));
      return;
    }
    const text = typeof raw.text === 'string' ? raw.text : '';
    const thought = raw.thought === true;
    const joins =
      prev !== undefined &&
      typeof prev.text === 'string' &&
      (prev.thought === true) === thought &&
      (signature === undefined || prev.thoughtSignature === undefined);
    if (!joins) {
      if (text === '' && signature === undefined) return; // an empty piece carries nothing
      cand.parts.push({ ...structuredClone(raw), text });
      return;
    }
    prev.text = (prev.text as string) + text;
    if (signature !== undefined) prev.thoughtSignature = signature;
  }

  protected build(): GeminiStreamResponse {
    const candidates = [...this.candidates.values()]
      .sort((a, b) => a.index - b.index)
      .map((cd) => ({
        ...structuredClone(cd.rest),
        index: cd.index,
        content: { role: 'model', parts: structuredClone(cd.parts) },
        ...(cd.finish !== undefined ? { finishReason: cd.finish } : {}),
      }));
    return { ...structuredClone(this.rest), candidates };
  }
}

/**
 * Folds Gemini `streamGenerateContent` chunks (REST with `alt=sse`: each `data:` line one
 * `GenerateContentResponse`) into one `GenerateContentResponse`: text pieces joined per run of
 * thought / answer text, thought signatures kept on the part they belong to, function calls as they
 * came, `finishReason` and the last `usageMetadata`.
 */
export function geminiStream(): StreamAccumulator<GeminiStreamChunk, GeminiStreamResponse> {
  return new GeminiFold();
}
