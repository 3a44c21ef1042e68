/**
 * Gemini `generateContent` (`POST /v1beta/models/{model}:generateContent`).
 *
 * - `contents` alternate `user` and `model`; the system prompt and memory are `systemInstruction` parts.
 * - Calls are `functionCall` parts, results `functionResponse` parts whose `response` is an object:
 *   `{ output }`, or `{ error }` for a failed tool (the documented keys). Images from results follow
 *   the batch's `functionResponse` parts as `inlineData` in the same user content.
 * - Thought signatures stay on the part they came with (`thoughtSignature` on a functionCall, text or
 *   thought part), verbatim: Gemini 3 rejects function-calling history without them.
 */
import type { ContentPart } from '../transcript/items.js';
import type { Turn } from './normalize.js';
import { resultParts, resultText } from './normalize.js';
import { asObject } from './anthropic.js';
import type { ViewContext, WireView } from './view.js';
import type { WireRequest } from './types.js';

type Json = Record<string, unknown>;

function inline(mediaType: string, data: string): Json {
  return { inlineData: { mimeType: mediaType, data } };
}

function build(turns: Turn[], request: WireRequest, ctx: ViewContext): Json {
  const contents: Json[] = [];
  for (const turn of turns) {
    const parts: Json[] = [];
    let pendingImages: Json[] = [];
    const flushImages = (): void => {
      parts.push(...pendingImages);
      pendingImages = [];
    };
    for (const b of turn.blocks) {
      if (b.type !== 'tool_result') flushImages();
      switch (b.type) {
        case 'text': {
          const p: Json = { text: b.text };
          if (b.signature !== undefined) p.thoughtSignature = b.signature;
          parts.push(p);
          break;
        }
        case 'image':
          parts.push(inline(b.image.mediaType, b.image.data));
          break;
        case 'reasoning': {
          const p: Json = { text: b.item.text, thought: true };
          if (b.item.signature !== undefined) p.thoughtSignature = b.item.signature;
          parts.push(p);
          break;
        }
        case 'tool_call': {
          const p: Json = {
            functionCall: { id: b.item.callId, name: b.item.name, args: asObject(b.item.input) },
          };
          if (b.item.signature !== undefined) p.thoughtSignature = b.item.signature;
          parts.push(p);
          break;
        }
        case 'tool_result': {
          const content: ContentPart[] = resultParts(b.item.content, ctx.vision);
          const text = resultText(b.item, content);
          parts.push({
            functionResponse: {
              id: b.item.callId,
              name: b.item.name,
              response: b.item.isError ? { error: text } : { output: text },
            },
          });
          for (const p of content) if (p.type === 'image') pendingImages.push(inline(p.mediaType, p.data));
          break;
        }
      }
    }
    flushImages();
    if (parts.length > 0) contents.push({ role: turn.role === 'assistant' ? 'model' : 'user', parts });
  }
  const body: Json = {};
  const system = [request.system, request.memory].filter((s): s is string => !!s).map((text) => ({ text }));
  if (system.length > 0) body.systemInstruction = { parts: system };
  body.contents = contents;
  if (request.tools && request.tools.length > 0)
    body.tools = [
      {
        functionDeclarations: request.tools.map((t) => ({
          name: t.name,
          ...(t.description !== undefined ? { description: t.description } : {}),
          parameters: t.parameters,
        })),
      },
    ];
  if (request.maxTokens !== undefined) body.generationConfig = { maxOutputTokens: request.maxTokens };
  return body;
}

export const geminiView: WireView = { provider: 'gemini', family: 'gemini', userFirst: true, build };
