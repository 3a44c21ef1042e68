/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`).
 *
 * - Instructions as a `system` (or `developer`) message; memory as a second one.
 * - Assistant text and tool calls share one assistant message (`content` may be null).
 * - Each tool result is its own `tool` message, all of them directly after the assistant message.
 *   A `tool` message carries only text, so images from tool results follow in one user message after
 *   the last `tool` message of the batch (never between a call and a result).
 * - Image parts always carry an explicit `detail`.
 * - Reasoning has no place in this format and is left out.
 */
import type { ContentPart } from '../transcript/items.js';
import type { Turn } from './normalize.js';
import { resultParts, resultText } from './normalize.js';
import type { ViewContext, WireView } from './view.js';
import type { WireRequest } from './types.js';

type Json = Record<string, unknown>;

function imagePart(mediaType: string, data: string, detail: string): Json {
  return { type: 'image_url', image_url: { url: `data:${mediaType};base64,${data}`, detail } };
}

function build(turns: Turn[], request: WireRequest, ctx: ViewContext): Json {
  const detail = request.imageDetail ?? 'high';
  const role = request.systemRole ?? 'system';
  const messages: Json[] = [];
  if (request.system) messages.push({ role, content: request.system });
  if (request.memory) messages.push({ role, content: request.memory });

  for (const turn of turns) {
    if (turn.role === 'assistant') {
      const text: string[] = [];
      const calls: Json[] = [];
      for (const b of turn.blocks) {
        if (b.type === 'text') text.push(b.text);
        else if (b.type === 'tool_call')
          calls.push({
            id: b.item.callId,
            type: 'function',
            function: { name: b.item.name, arguments: JSON.stringify(b.item.input ?? {}) },
          });
      }
      if (text.length === 0 && calls.length === 0) continue; // reasoning-only turn
      const msg: Json = { role: 'assistant', content: text.length > 0 ? text.join('\n\n') : null };
      if (calls.length > 0) msg.tool_calls = calls;
      messages.push(msg);
      continue;
    }
    let parts: Json[] = [];
    let pendingImages: Json[] = [];
    const flushUser = (): void => {
      if (pendingImages.length > 0) {
        parts = [...pendingImages, ...parts];
        pendingImages = [];
      }
      if (parts.length > 0) messages.push({ role: 'user', content: parts });
      parts = [];
    };
    for (const b of turn.blocks) {
      if (b.type === 'tool_result') {
        if (parts.length > 0) flushUser(); // cannot happen after repair; kept so order is never broken
        const content: ContentPart[] = resultParts(b.item.content, ctx.vision);
        messages.push({ role: 'tool', tool_call_id: b.item.callId, content: resultText(b.item, content) });
        const images = content.filter((p) => p.type === 'image');
        if (images.length > 0) {
          pendingImages.push({ type: 'text', text: `Images from the result of tool call ${b.item.callId}:` });
          for (const p of images) pendingImages.push(imagePart(p.mediaType, p.data, detail));
        }
      } else if (b.type === 'text') parts.push({ type: 'text', text: b.text });
      else if (b.type === 'image') parts.push(imagePart(b.image.mediaType, b.image.data, detail));
    }
    flushUser();
  }

  const body: Json = { model: request.model, messages };
  if (request.tools && request.tools.length > 0)
    body.tools = request.tools.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        parameters: t.parameters,
      },
    }));
  if (request.maxTokens !== undefined) body.max_completion_tokens = request.maxTokens;
  return body;
}

export const openaiChatView: WireView = {
  provider: 'openai-chat',
  family: 'openai',
  userFirst: false,
  build,
};
