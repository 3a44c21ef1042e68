/**
 * `wireView`: path + instructions → the exact request body for one provider.
 * Pipeline: repair pairing (on a copy) → optional chaining cut → normalise → the provider's view.
 */
import type { Item } from '../transcript/items.js';
import { anthropicView } from './anthropic.js';
import { geminiView } from './gemini.js';
import { normalize, type NormalizeNotes, type Turn } from './normalize.js';
import { openaiChatView } from './openai-chat.js';
import { openaiResponsesView } from './openai-responses.js';
import { repairPairing } from './pairing.js';
import type { Repair, WireProvider, WireRequest, WireResult, WireResultOf } from './types.js';
import type { WireView } from './view.js';

/** Every wire format, as data. */
export const VIEWS: { readonly [P in WireProvider]: WireView<P> } = {
  anthropic: anthropicView,
  'openai-chat': openaiChatView,
  'openai-responses': openaiResponsesView,
  gemini: geminiView,
};

/** Text of the user turn put in front when a format must open with a user turn but the path does not. */
export const LEADING_USER_TEXT =
  '[The conversation continues from an earlier part that is not included here.]';

/** The turns a view will send, with the repairs that made them sendable. Shared with token estimates. */
export function prepareTurns(
  provider: WireProvider,
  path: readonly Item[],
  request: WireRequest,
): { turns: Turn[]; repairs: Repair[]; notes: NormalizeNotes; view: WireView; vision: boolean } {
  const view = VIEWS[provider];
  if (!view)
    throw new Error(
      `unknown provider '${String(provider)}': expected one of ${Object.keys(VIEWS).join(', ')}`,
    );
  const { items, repairs } = repairPairing(path);
  let send = items;
  if (request.previousResponse) {
    if (provider !== 'openai-responses')
      throw new Error(`previousResponse chaining is an OpenAI Responses feature; provider is '${provider}'`);
    const at = items.findIndex((i) => i.id === request.previousResponse!.after);
    if (at < 0)
      throw new Error(
        `previousResponse.after: item '${request.previousResponse.after}' is not in the path (expected the last item response '${request.previousResponse.id}' covered)`,
      );
    send = items.slice(at + 1);
  }
  const vision = request.profile?.vision ?? true;
  const normalized = normalize(send, { family: view.family, vision });
  const notes = normalized.notes;
  // Reasoning a format cannot carry is left out, and said so: Anthropic wants thinking blocks back
  // with tool use, so a missing one is worth knowing about.
  const byId = new Map(send.map((i) => [i.id, i]));
  for (const id of notes.droppedReasoning) {
    const r = byId.get(id);
    if (r?.kind !== 'reasoning') continue;
    const why =
      r.provider === undefined
        ? 'it names no provider, so its signature cannot be trusted by any'
        : r.provider !== view.family
          ? `it came from ${r.provider}; signatures only travel within one provider family`
          : 'it carries neither a signature nor encrypted content this format takes back';
    repairs.push({
      kind: 'dropped_reasoning',
      itemId: id,
      detail: `reasoning left out of the ${provider} body: ${why}`,
    });
  }
  const turns = view.adjust ? view.adjust(normalized.turns) : normalized.turns;
  if (view.userFirst && turns[0]?.role === 'assistant') {
    turns.unshift({
      role: 'user',
      blocks: [
        {
          type: 'text',
          text: LEADING_USER_TEXT,
          origin: { itemId: '~leading-user-turn', author: 'machinery', kind: 'message' },
        },
      ],
    });
    repairs.push({
      kind: 'leading_user_turn',
      detail: `${provider} requires the first turn to be the user's; the path opens with a model turn`,
    });
  }
  return { turns, repairs, notes, view, vision };
}

/**
 * Builds the exact request body for `provider` from a path (root → tip) and per-request instructions.
 * The pairing repair always runs; its repairs are returned, the input array is never touched.
 */
export function wireView<P extends WireProvider>(
  provider: P,
  path: readonly Item[],
  request: WireRequest,
): WireResult<P>;
export function wireView<P extends WireProvider>(
  provider: P,
  path: readonly Item[],
  request: WireRequest,
): WireResultOf<P> {
  const { turns, repairs, vision } = prepareTurns(provider, path, request);
  if (turns.length === 0)
    throw new Error(
      `wireView(${provider}): nothing to send: none of the ${path.length} items in the path is content this format carries`,
    );
  const view: WireView<P> = VIEWS[provider];
  return { provider, body: view.build(turns, request, { vision }), repairs };
}
