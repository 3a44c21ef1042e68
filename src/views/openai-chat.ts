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
import { resultParts, resultText, safeCallId } from './normalize.js';
import type { ViewContext, WireView } from './view.js';
import type { WireRequest } from './types.js';
import type {
  OpenAIChatBody,
  OpenAIChatImageDetail,
  OpenAIChatImagePart,
  OpenAIChatMessage,
  OpenAIChatTextPart,
  OpenAIChatToolCall,
  WireMediaType,
} from './bodies.js';

type Part = OpenAIChatTextPart | OpenAIChatImagePart;

/** Chat Completions rejects tool call ids longer than 40 characters. */
export const OPENAI_CHAT_CALL_ID = { pattern: /^[\x21-\x7e]+$/, maxLength: 40 };

function imagePart(
  mediaType: WireMediaType,
  data: string,
  detail: OpenAIChatImageDetail,
): OpenAIChatImagePart {
  return { type: 'image_url', image_url: { url: `data:${mediaType};base64,${data}`, detail } };
}

function build(turns: Turn[], request: WireRequest, ctx: ViewContext): OpenAIChatBody {
  const asked = request.imageDetail ?? 'high';
  if (asked === 'original')
    throw new Error(
      `openai-chat: imageDetail 'original' is a Responses API level; Chat Completions takes low, high or auto`,
    );
  const detail: OpenAIChatImageDetail = asked;
  const role = request.systemRole ?? 'system';
  const messages: OpenAIChatMessage[] = [];
  if (request.system) messages.push({ role, content: request.system });
  if (request.memory) messages.push({ role, content: request.memory });

  for (const turn of turns) {
    if (turn.role === 'assistant') {
      const text: string[] = [];
      const calls: OpenAIChatToolCall[] = [];
      for (const b of turn.blocks) {
        if (b.type === 'text') text.push(b.text);
        else if (b.type === 'tool_call')
          calls.push({
            id: safeCallId(b.item.callId, OPENAI_CHAT_CALL_ID),
            type: 'function',
            function: { name: b.item.name, arguments: JSON.stringify(b.item.input ?? {}) },
          });
      }
      if (text.length === 0 && calls.length === 0) continue; // reasoning-only turn
      messages.push({
        role: 'assistant',
        content: text.length > 0 ? text.join('\n\n') : null,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
      continue;
    }
    let parts: Part[] = [];
    let pendingImages: Part[] = [];
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
        messages.push({
          role: 'tool',
          tool_call_id: safeCallId(b.item.callId, OPENAI_CHAT_CALL_ID),
          content: resultText(b.item, content, true),
        });
        const images = content.filter((p) => p.type === 'image');
        if (images.length > 0) {
          pendingImages.push({
            type: 'text',
            text: `Images from the result of tool call ${safeCallId(b.item.callId, OPENAI_CHAT_CALL_ID)}:`,
          });
          for (const p of images) pendingImages.push(imagePart(p.mediaType, p.data, detail));
        }
      } else if (b.type === 'text') parts.push({ type: 'text', text: b.text });
      else if (b.type === 'image') parts.push(imagePart(b.image.mediaType, b.image.data, detail));
    }
    flushUser();
  }

  const body: OpenAIChatBody = { model: request.model, messages };
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

export const openaiChatView: WireView<'openai-chat'> = {
  provider: 'openai-chat',
  family: 'openai',
  userFirst: false,
  build,
};
