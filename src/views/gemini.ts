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
import type { GeminiBody, GeminiContent, GeminiPart, WireMediaType } from './bodies.js';

function inline(mediaType: WireMediaType, data: string): GeminiPart {
  return { inlineData: { mimeType: mediaType, data } };
}

function build(turns: Turn[], request: WireRequest, ctx: ViewContext): GeminiBody {
  const contents: GeminiContent[] = [];
  for (const turn of turns) {
    const parts: GeminiPart[] = [];
    let pendingImages: GeminiPart[] = [];
    const flushImages = (): void => {
      parts.push(...pendingImages);
      pendingImages = [];
    };
    for (const b of turn.blocks) {
      if (b.type !== 'tool_result') flushImages();
      switch (b.type) {
        case 'text': {
          parts.push(
            b.signature !== undefined ? { text: b.text, thoughtSignature: b.signature } : { text: b.text },
          );
          break;
        }
        case 'image':
          parts.push(inline(b.image.mediaType, b.image.data));
          break;
        case 'reasoning': {
          parts.push({
            text: b.item.text,
            thought: true,
            ...(b.item.signature !== undefined ? { thoughtSignature: b.item.signature } : {}),
          });
          break;
        }
        case 'tool_call': {
          parts.push({
            functionCall: { id: b.item.callId, name: b.item.name, args: asObject(b.item.input) },
            ...(b.item.signature !== undefined ? { thoughtSignature: b.item.signature } : {}),
          });
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
  const system = [request.system, request.memory].filter((s): s is string => !!s).map((text) => ({ text }));
  const body: GeminiBody = {
    ...(system.length > 0 ? { systemInstruction: { parts: system } } : {}),
    contents,
  };
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

export const geminiView: WireView<'gemini'> = {
  provider: 'gemini',
  family: 'gemini',
  userFirst: true,
  build,
};
