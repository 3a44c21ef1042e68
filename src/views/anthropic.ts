/**
 * Anthropic Messages API (`POST /v1/messages`).
 *
 * - Strict user/assistant alternation: same-role turns are already merged by `normalize`.
 * - Tool results are `tool_result` blocks at the start of the user turn that follows the calls.
 * - Reasoning from Anthropic goes back as `thinking` (with signature) or `redacted_thinking`; an
 *   earlier assistant turn of reasoning alone is left out (the API drops earlier thinking anyway).
 * - Images are base64 `image` blocks, also inside `tool_result` content.
 * - Up to 4 `cache_control` breakpoints, at positions that stay put from request to request:
 *   the last tool, the last system block, the end of the stable prefix, and the last message block.
 */
import type { Block, Turn } from './normalize.js';
import { dropReasoningOnlyTurns, resultParts, safeCallId } from './normalize.js';
import type { ViewContext, WireView } from './view.js';
import type { WireRequest } from './types.js';
import type {
  AnthropicCacheControl,
  AnthropicContentBlock as AnthropicBlock,
  AnthropicImageBlock,
  AnthropicInputSchema,
  AnthropicMessageParam as AnthropicMessage,
  AnthropicMessagesBody,
  AnthropicRedactedThinkingBlock,
  AnthropicThinkingBlock,
  AnthropicTextBlock,
  AnthropicTool,
} from './bodies.js';
import type { WireMediaType } from './bodies.js';

/** Default `max_tokens` when the request names none (the API requires the field). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
const MAX_BREAKPOINTS = 4;
const EPHEMERAL: AnthropicCacheControl = { type: 'ephemeral' };
/** tool_use ids must match this (the API rejects others, e.g. ids minted by other providers). */
export const ANTHROPIC_CALL_ID = { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 };

/** Tool inputs and function args must be JSON objects on the wire. */
export function asObject(input: unknown): Record<string, unknown> {
  return input !== null && typeof input === 'object' && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : { value: input };
}

function image(mediaType: WireMediaType, data: string): AnthropicImageBlock {
  return { type: 'image', source: { type: 'base64', media_type: mediaType, data } };
}

function block(b: Block, vision: boolean): AnthropicBlock {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'image':
      return image(b.image.mediaType, b.image.data);
    case 'reasoning':
      return b.item.signature !== undefined
        ? { type: 'thinking', thinking: b.item.text, signature: b.item.signature }
        : { type: 'redacted_thinking', data: b.item.encrypted ?? '' };
    case 'tool_call':
      return {
        type: 'tool_use',
        id: safeCallId(b.item.callId, ANTHROPIC_CALL_ID),
        name: b.item.name,
        input: asObject(b.item.input),
      };
    case 'tool_result': {
      const parts = resultParts(b.item.content, vision);
      const out: AnthropicBlock & { type: 'tool_result' } = {
        type: 'tool_result',
        tool_use_id: safeCallId(b.item.callId, ANTHROPIC_CALL_ID),
      };
      if (parts.length > 0)
        out.content = parts.map((p) =>
          p.type === 'text' ? ({ type: 'text', text: p.text } as const) : image(p.mediaType, p.data),
        );
      if (b.item.isError) out.is_error = true;
      return out;
    }
  }
}

type CacheableBlock = Exclude<AnthropicBlock, AnthropicThinkingBlock | AnthropicRedactedThinkingBlock>;

function cacheable(b: AnthropicBlock): b is CacheableBlock {
  return b.type !== 'thinking' && b.type !== 'redacted_thinking';
}

/** Index of the last block in `content` that may carry cache_control, or -1. */
function lastCacheable(content: AnthropicBlock[]): number {
  for (let i = content.length - 1; i >= 0; i--) if (cacheable(content[i]!)) return i;
  return -1;
}

function build(turns: Turn[], request: WireRequest, ctx: ViewContext): AnthropicMessagesBody {
  const cache = request.cache ?? true;
  const messages: AnthropicMessage[] = [];
  // origins[m][b] = item ids behind block b of message m, to place the stable-prefix breakpoint.
  const origins: string[][] = [];
  for (const turn of turns) {
    messages.push({ role: turn.role, content: turn.blocks.map((b) => block(b, ctx.vision)) });
    origins.push(turn.blocks.map((b) => b.origin.itemId));
  }

  const system: AnthropicTextBlock[] = [];
  if (request.system) system.push({ type: 'text', text: request.system });
  if (request.memory) system.push({ type: 'text', text: request.memory });
  const tools: AnthropicTool[] = (request.tools ?? []).map((t) => ({
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    // A tool's parameters are an object schema (`type: 'object'`); the API checks the rest.
    input_schema: t.parameters as AnthropicInputSchema,
  }));

  if (cache) {
    let budget = MAX_BREAKPOINTS;
    const mark = (b: AnthropicBlock | AnthropicTool | undefined): void => {
      if (!b || budget === 0 || ('type' in b && !cacheable(b)) || b.cache_control) return;
      b.cache_control = { ...EPHEMERAL };
      budget--;
    };
    mark(tools[tools.length - 1]);
    mark(system[system.length - 1]);
    // End of the stable prefix: the caller's item, else the end of everything before the last user turn.
    let stable: [number, number] | undefined;
    if (request.stablePrefixEnd !== undefined) {
      for (let m = origins.length - 1; m >= 0 && !stable; m--) {
        const ids = origins[m]!;
        for (let b = ids.length - 1; b >= 0; b--) {
          if (ids[b] === request.stablePrefixEnd && cacheable(messages[m]!.content[b]!)) {
            stable = [m, b];
            break;
          }
        }
      }
    } else {
      let lastUser = -1;
      for (let m = messages.length - 1; m >= 0; m--)
        if (messages[m]!.role === 'user') {
          lastUser = m;
          break;
        }
      for (let m = lastUser - 1; m >= 0 && !stable; m--) {
        const b = lastCacheable(messages[m]!.content);
        if (b >= 0) stable = [m, b];
      }
    }
    if (stable) mark(messages[stable[0]]!.content[stable[1]]);
    // End of this request: what the next request will read from the cache.
    for (let m = messages.length - 1; m >= 0; m--) {
      const b = lastCacheable(messages[m]!.content);
      if (b >= 0) {
        mark(messages[m]!.content[b]);
        break;
      }
    }
  }
  // Key order is part of the bytes a prompt cache keys on: model, max_tokens, system, tools, messages.
  return {
    model: request.model,
    max_tokens: request.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    ...(system.length > 0 ? { system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    messages,
  };
}

export const anthropicView: WireView<'anthropic'> = {
  provider: 'anthropic',
  family: 'anthropic',
  userFirst: true,
  adjust: dropReasoningOnlyTurns,
  build,
};
