/**
 * OpenAI Responses (`POST /v1/responses`), stateless by default: the whole path goes in `input`.
 *
 * - Instructions (system prompt, then memory) go in `instructions`, which is not carried over by
 *   `previous_response_id`, so it is sent on every request.
 * - Messages are input messages; calls are `function_call` items, results `function_call_output`
 *   items (text, or a list of `input_text` / `input_image` parts when the result has images).
 * - OpenAI reasoning goes back as `reasoning` items with their `encrypted_content` verbatim; the
 *   reasoning item id (`rs_…`) is read from the item's `signature` field when the importer kept it.
 * - `previousResponse` chaining is handled by `wireView`, which sends only the items after it.
 */
import type { ContentPart } from '../transcript/items.js';
import type { Turn } from './normalize.js';
import { resultParts, resultText } from './normalize.js';
import type { ViewContext, WireView } from './view.js';
import type { WireRequest } from './types.js';
import type {
  OpenAIResponsesBody,
  OpenAIResponsesImageDetail,
  OpenAIResponsesInputImage,
  OpenAIResponsesInputItem,
  OpenAIResponsesInputText,
  OpenAIResponsesReasoning,
  WireMediaType,
} from './bodies.js';

function inputImage(
  mediaType: WireMediaType,
  data: string,
  detail: OpenAIResponsesImageDetail,
): OpenAIResponsesInputImage {
  return { type: 'input_image', image_url: `data:${mediaType};base64,${data}`, detail };
}

function build(turns: Turn[], request: WireRequest, ctx: ViewContext): OpenAIResponsesBody {
  const detail = request.imageDetail ?? 'high';
  const input: OpenAIResponsesInputItem[] = [];
  for (const turn of turns) {
    let parts: Array<OpenAIResponsesInputText | OpenAIResponsesInputImage> = [];
    let text: string[] = [];
    const flush = (): void => {
      if (turn.role === 'user' && parts.length > 0)
        input.push({ type: 'message', role: 'user', content: parts });
      if (turn.role === 'assistant' && text.length > 0)
        input.push({ type: 'message', role: 'assistant', content: text.join('\n\n') });
      parts = [];
      text = [];
    };
    for (const b of turn.blocks) {
      switch (b.type) {
        case 'text':
          if (turn.role === 'user') parts.push({ type: 'input_text', text: b.text });
          else text.push(b.text);
          break;
        case 'image':
          parts.push(inputImage(b.image.mediaType, b.image.data, detail));
          break;
        case 'reasoning': {
          flush();
          const r: OpenAIResponsesReasoning = {
            type: 'reasoning',
            ...(b.item.signature !== undefined ? { id: b.item.signature } : {}),
            summary: b.item.text === '' ? [] : [{ type: 'summary_text', text: b.item.text }],
          };
          if (b.item.encrypted !== undefined) r.encrypted_content = b.item.encrypted;
          input.push(r);
          break;
        }
        case 'tool_call':
          flush();
          input.push({
            type: 'function_call',
            call_id: b.item.callId,
            name: b.item.name,
            arguments: JSON.stringify(b.item.input ?? {}),
          });
          break;
        case 'tool_result': {
          flush();
          const content: ContentPart[] = resultParts(b.item.content, ctx.vision);
          const output = content.some((p) => p.type === 'image')
            ? content.map((p) =>
                p.type === 'text'
                  ? ({ type: 'input_text', text: p.text } as const)
                  : inputImage(p.mediaType, p.data, detail),
              )
            : resultText(b.item, content, true);
          input.push({ type: 'function_call_output', call_id: b.item.callId, output });
          break;
        }
      }
    }
    flush();
  }
  const instructions = [request.system, request.memory].filter((s): s is string => !!s).join('\n\n');
  // Key order as the API reference lists it (and as earlier requests sent it: caches key on bytes).
  const body: OpenAIResponsesBody = {
    model: request.model,
    ...(instructions !== '' ? { instructions } : {}),
    ...(request.previousResponse ? { previous_response_id: request.previousResponse.id } : {}),
    input,
  };
  if (request.tools && request.tools.length > 0)
    body.tools = request.tools.map((t) => ({
      type: 'function',
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      parameters: t.parameters,
      strict: false,
    }));
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
  return body;
}

export const openaiResponsesView: WireView<'openai-responses'> = {
  provider: 'openai-responses',
  family: 'openai',
  userFirst: false,
  build,
};
