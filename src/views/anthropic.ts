/**
 * Anthropic Messages API (`POST /v1/messages`).
 *
 * - Strict user/assistant alternation: same-role turns are already merged by `normalize`.
 * - Tool results are `tool_result` blocks at the start of the user turn that follows the calls.
 * - Reasoning from Anthropic goes back as `thinking` (with signature) or `redacted_thinking`.
 * - Images are base64 `image` blocks, also inside `tool_result` content.
 * - Up to 4 `cache_control` breakpoints, at positions that stay put from request to request:
 *   the last tool, the last system block, the end of the stable prefix, and the last message block.
 */
import type { Block, Turn } from './normalize.js';
import { resultParts } from './normalize.js';
import type { ViewContext, WireView } from './view.js';
import type { WireRequest } from './types.js';

type AnthropicBlock = Record<string, unknown> & { type: string };
interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

/** Default `max_tokens` when the request names none (the API requires the field). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
const MAX_BREAKPOINTS = 4;
const EPHEMERAL = { type: 'ephemeral' } as const;

/** Tool inputs and function args must be JSON objects on the wire. */
export function asObject(input: unknown): Record<string, unknown> {
  return input !== null && typeof input === 'object' && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : { value: input };
}

function image(mediaType: string, data: string): AnthropicBlock {
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
      return { type: 'tool_use', id: b.item.callId, name: b.item.name, input: asObject(b.item.input) };
    case 'tool_result': {
      const parts = resultParts(b.item.content, vision);
      const out: AnthropicBlock = { type: 'tool_result', tool_use_id: b.item.callId };
      if (parts.length > 0)
        out.content = parts.map((p) =>
          p.type === 'text' ? { type: 'text', text: p.text } : image(p.mediaType, p.data),
        );
      if (b.item.isError) out.is_error = true;
      return out;
    }
  }
}

function cacheable(b: AnthropicBlock): boolean {
  return b.type !== 'thinking' && b.type !== 'redacted_thinking';
}

/** Index of the last block in `content` that may carry cache_control, or -1. */
function lastCacheable(content: AnthropicBlock[]): number {
  for (let i = content.length - 1; i >= 0; i--) if (cacheable(content[i]!)) return i;
  return -1;
}

function build(turns: Turn[], request: WireRequest, ctx: ViewContext): Record<string, unknown> {
  const cache = request.cache ?? true;
  const messages: AnthropicMessage[] = [];
  // origins[m][b] = item ids behind block b of message m, to place the stable-prefix breakpoint.
  const origins: string[][] = [];
  for (const turn of turns) {
    messages.push({ role: turn.role, content: turn.blocks.map((b) => block(b, ctx.vision)) });
    origins.push(turn.blocks.map((b) => b.origin.itemId));
  }

  const body: Record<string, unknown> = {
    model: request.model,
    max_tokens: request.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
  };
  const system: AnthropicBlock[] = [];
  if (request.system) system.push({ type: 'text', text: request.system });
  if (request.memory) system.push({ type: 'text', text: request.memory });
  const tools: Array<Record<string, unknown>> = (request.tools ?? []).map((t) => ({
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    input_schema: t.parameters,
  }));

  if (cache) {
    let budget = MAX_BREAKPOINTS;
    const mark = (b: Record<string, unknown> | undefined): void => {
      if (!b || budget === 0 || b.cache_control) return;
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
  if (system.length > 0) body.system = system;
  if (tools.length > 0) body.tools = tools;
  body.messages = messages;
  return body;
}

export const anthropicView: WireView = {
  provider: 'anthropic',
  family: 'anthropic',
  userFirst: true,
  build,
};
