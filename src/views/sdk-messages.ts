/**
 * A path as the message arrays of two agent libraries, the way back of their importers
 * (`src/transcript/import/vercel-ai.ts`, `langchain.ts`): the Vercel AI SDK's `ModelMessage[]` (for
 * `generateText({ system, messages })`) and LangChain's stored messages (`{ type, data }`, for
 * `mapStoredMessagesToChatMessages`). Pairing is repaired first, as for a wire view; tool results travel
 * as the libraries want them (AI SDK `tool` messages, LangChain `ToolMessage`s), and reasoning, which
 * neither carries back to a provider in a portable way, is left out and counted.
 *
 * The types are our own, structurally what the libraries accept, so neither library is needed to use
 * or compile this module (tests check both against the real packages).
 */
import type { ContentPart, ImageData, Item, ToolResultItem } from '../transcript/items.js';
import { normalize, resultParts, resultText, type Turn } from './normalize.js';
import { repairPairing } from './pairing.js';
import type { Repair } from './types.js';

/** What both conversions return besides the messages. */
export interface SdkMessagesReport {
  repairs: Repair[];
  /** Ids of reasoning items left out (neither format carries them back portably). */
  droppedReasoning: string[];
}

export interface SdkMessagesOptions {
  /** The system prompt (AI SDK: returned as `system`; LangChain: a leading system message). */
  system?: string;
  /** False for a model without vision: images become text placeholders. Default true. */
  vision?: boolean;
}

// ---------------------------------------------------------------- Vercel AI SDK (`ai` v5/v6)

export type VercelAITextPart = { type: 'text'; text: string };
export type VercelAIImagePart = { type: 'image'; image: string; mediaType: ImageData['mediaType'] };
export type VercelAIToolCallPart = {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
};
export type VercelAIToolResultOutput =
  | { type: 'text'; value: string }
  | { type: 'error-text'; value: string }
  | {
      type: 'content';
      value: ({ type: 'text'; text: string } | { type: 'media'; data: string; mediaType: string })[];
    };
export type VercelAIToolResultPart = {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: VercelAIToolResultOutput;
};
export type VercelAIModelMessage =
  | { role: 'user'; content: (VercelAITextPart | VercelAIImagePart)[] }
  | { role: 'assistant'; content: (VercelAITextPart | VercelAIToolCallPart)[] }
  | { role: 'tool'; content: VercelAIToolResultPart[] };

/**
 * The path as AI SDK `ModelMessage[]`: `generateText({ model, system, messages })` takes the result as
 * it is. A tool result with images becomes `content` output (text and media parts), an error result
 * `error-text`.
 */
export function vercelAIMessages(
  path: readonly Item[],
  options: SdkMessagesOptions = {},
): SdkMessagesReport & { system?: string; messages: VercelAIModelMessage[] } {
  const { turns, repairs, droppedReasoning } = turnsOf(path, options);
  const messages: VercelAIModelMessage[] = [];
  for (const turn of turns) {
    if (turn.role === 'assistant') {
      const content: (VercelAITextPart | VercelAIToolCallPart)[] = [];
      for (const b of turn.blocks) {
        if (b.type === 'text') content.push({ type: 'text', text: b.text });
        else if (b.type === 'tool_call')
          content.push({
            type: 'tool-call',
            toolCallId: b.item.callId,
            toolName: b.item.name,
            input: b.item.input ?? {},
          });
      }
      if (content.length > 0) messages.push({ role: 'assistant', content });
      continue;
    }
    // A user turn: its tool results first, as one tool message, then what the person or context said.
    const results: VercelAIToolResultPart[] = [];
    const user: (VercelAITextPart | VercelAIImagePart)[] = [];
    for (const b of turn.blocks) {
      if (b.type === 'tool_result') results.push(aiToolResult(b.item, options.vision ?? true));
      else if (b.type === 'text') user.push({ type: 'text', text: b.text });
      else if (b.type === 'image')
        user.push({ type: 'image', image: b.image.data, mediaType: b.image.mediaType });
    }
    if (results.length > 0) messages.push({ role: 'tool', content: results });
    if (user.length > 0) messages.push({ role: 'user', content: user });
  }
  return {
    ...(options.system !== undefined ? { system: options.system } : {}),
    messages,
    repairs,
    droppedReasoning,
  };
}

function aiToolResult(item: ToolResultItem, vision: boolean): VercelAIToolResultPart {
  const parts = resultParts(item.content, vision);
  const base = { type: 'tool-result' as const, toolCallId: item.callId, toolName: item.name };
  if (item.isError) return { ...base, output: { type: 'error-text', value: resultText(item, parts) } };
  if (!parts.some((p) => p.type === 'image'))
    return { ...base, output: { type: 'text', value: resultText(item, parts) } };
  return {
    ...base,
    output: {
      type: 'content',
      value: parts.map((p) =>
        p.type === 'text'
          ? { type: 'text' as const, text: p.text }
          : { type: 'media' as const, data: p.data, mediaType: p.mediaType },
      ),
    },
  };
}

// ---------------------------------------------------------------- LangChain.js (`@langchain/core`)

export type LangChainContentBlock =
  { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
/** `role`, `name` and `tool_call_id` are always present, as in LangChain's own `StoredMessageData`. */
interface LangChainStoredData {
  content: string | LangChainContentBlock[];
  role: undefined;
  name: string | undefined;
  tool_call_id: string | undefined;
}
export type LangChainStoredMessage =
  | { type: 'system' | 'human'; data: LangChainStoredData }
  | {
      type: 'ai';
      data: LangChainStoredData & {
        content: string;
        tool_calls: { id: string; name: string; args: Record<string, unknown>; type: 'tool_call' }[];
      };
    }
  | {
      type: 'tool';
      data: LangChainStoredData & { tool_call_id: string; name: string; status: 'success' | 'error' };
    };

/**
 * The path as LangChain stored messages; `mapStoredMessagesToChatMessages(messages)` from
 * `@langchain/core/messages` makes them `SystemMessage`, `HumanMessage`, `AIMessage` and
 * `ToolMessage` objects. Tool call arguments that are not an object are wrapped as `{ input }`.
 */
export function langchainMessages(
  path: readonly Item[],
  options: SdkMessagesOptions = {},
): SdkMessagesReport & { messages: LangChainStoredMessage[] } {
  const { turns, repairs, droppedReasoning } = turnsOf(path, options);
  const vision = options.vision ?? true;
  const messages: LangChainStoredMessage[] = [];
  const data = (content: string | LangChainContentBlock[]): LangChainStoredData => ({
    content,
    role: undefined,
    name: undefined,
    tool_call_id: undefined,
  });
  if (options.system !== undefined) messages.push({ type: 'system', data: data(options.system) });
  for (const turn of turns) {
    if (turn.role === 'assistant') {
      const text: string[] = [];
      const calls: Extract<LangChainStoredMessage, { type: 'ai' }>['data']['tool_calls'] = [];
      for (const b of turn.blocks) {
        if (b.type === 'text') text.push(b.text);
        else if (b.type === 'tool_call') {
          const input = b.item.input;
          const args =
            typeof input === 'object' && input !== null && !Array.isArray(input)
              ? (input as Record<string, unknown>)
              : { input };
          calls.push({ id: b.item.callId, name: b.item.name, args, type: 'tool_call' });
        }
      }
      if (text.length > 0 || calls.length > 0)
        messages.push({
          type: 'ai',
          data: { ...data(text.join('\n\n')), content: text.join('\n\n'), tool_calls: calls },
        });
      continue;
    }
    const human: LangChainContentBlock[] = [];
    for (const b of turn.blocks) {
      if (b.type === 'tool_result') {
        const parts = resultParts(b.item.content, vision);
        messages.push({
          type: 'tool',
          data: {
            ...data(parts.some((p) => p.type === 'image') ? parts.map(lcBlock) : resultText(b.item, parts)),
            tool_call_id: b.item.callId,
            name: b.item.name,
            status: b.item.isError ? 'error' : 'success',
          },
        });
      } else if (b.type === 'text') human.push({ type: 'text', text: b.text });
      else if (b.type === 'image') human.push(lcBlock({ type: 'image', ...b.image }));
    }
    if (human.length > 0) messages.push({ type: 'human', data: data(texts(human) ?? human) });
  }
  return { messages, repairs, droppedReasoning };
}

/** The blocks as one string when they are all text (how LangChain stores plain messages). */
function texts(blocks: readonly LangChainContentBlock[]): string | undefined {
  const out: string[] = [];
  for (const b of blocks) {
    if (b.type !== 'text') return undefined;
    out.push(b.text);
  }
  return out.join('\n\n');
}

const lcBlock = (p: ContentPart): LangChainContentBlock =>
  p.type === 'text'
    ? { type: 'text', text: p.text }
    : { type: 'image_url', image_url: { url: `data:${p.mediaType};base64,${p.data}` } };

/** Repaired, normalized turns; reasoning blocks are dropped and their items counted. */
function turnsOf(
  path: readonly Item[],
  options: SdkMessagesOptions,
): { turns: Turn[]; repairs: Repair[]; droppedReasoning: string[] } {
  const { items, repairs } = repairPairing(path);
  const { turns } = normalize(items, { family: 'openai', vision: options.vision ?? true });
  const droppedReasoning = items.filter((i) => i.kind === 'reasoning').map((i) => i.id);
  return { turns, repairs, droppedReasoning };
}
