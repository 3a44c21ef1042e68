/**
 * Fast token estimates per wire view, and the `/context` breakdown by author and kind.
 *
 * The estimate walks the same turns the view sends (`prepareTurns`: pairing repaired, foreign
 * reasoning dropped, wrappers applied), so it counts what goes out, not what is in the record:
 * text characters / `charsPerToken`, images by the profile's rule (`imageTokens`), a small overhead per
 * turn and per block. A `Calibrator` then scales the raw figure by what the provider has reported.
 */
import type { Author, ContentPart, ImageData, ItemKind, ToolCallItem } from '../transcript/items.js';
import type { Block } from '../views/normalize.js';
import { resultParts } from '../views/normalize.js';
import type { ImageTokenCounter, WireProvider, WireRequest } from '../views/types.js';
import { prepareTurns } from '../views/wire.js';
import type { Calibrator } from './calibrator.js';
import { imageTokens, resolveProfile, type Profile } from '../providers/index.js';
import { imageSizeBase64 } from '../transcript/image-size.js';

/** Characters per text token before calibration (English prose and code both sit near 4). */
export const DEFAULT_CHARS_PER_TOKEN = 4;
/** Role markers and separators around each turn, and framing around each block. */
export const TURN_OVERHEAD = 4;
export const BLOCK_OVERHEAD = 2;
/** Tokens assumed for an image whose size or rule is unknown (a full 1568-token Claude page: conservative). */
export const UNKNOWN_IMAGE_TOKENS = 1568;

// Items are immutable, so the length of a call's serialised arguments can be kept per item: the
// ladder estimates the same path many times per request, and serialising large inputs dominated.
const INPUT_CHARS = new WeakMap<object, number>();
function inputChars(item: ToolCallItem): number {
  let n = INPUT_CHARS.get(item);
  if (n === undefined) INPUT_CHARS.set(item, (n = JSON.stringify(item.input ?? {}).length));
  return n;
}

// Image pricing can search for a resize (a fraction of a millisecond per call); screenshots repeat a
// few sizes, so results are kept per profile object and size.
const IMAGE_COST = new WeakMap<Profile, Map<string, number>>();
function profileCounter(profile: Profile): ImageTokenCounter {
  let cache = IMAGE_COST.get(profile);
  if (!cache) IMAGE_COST.set(profile, (cache = new Map()));
  const memo = cache;
  return (w, h, o) => {
    const key = `${w}x${h}/${o?.detail ?? ''}`;
    let n = memo.get(key);
    if (n === undefined) memo.set(key, (n = imageTokens(profile, w, h, o)));
    return n;
  };
}

export interface EstimateOptions {
  charsPerToken?: number;
  /**
   * Image tokens for a width × height image. Default: `imageTokens` from `providers` under
   * `request.profile`, else under the profile `resolveProfile(request.model)` finds.
   */
  imageTokens?: ImageTokenCounter;
  /** Scales the raw estimate by the ratio learned for `request.model`. */
  calibrator?: Calibrator;
}

export interface TokenRow {
  author: Author | 'instructions';
  kind: ItemKind | 'system' | 'memory' | 'tools';
  /** How many items (or instruction blocks) fall in this row. */
  items: number;
  /** Calibrated tokens. */
  tokens: number;
}

export interface TokenEstimate {
  provider: WireProvider;
  model: string;
  /** Before calibration. */
  raw: number;
  /** Calibration ratio applied (1 without a calibrator or before the first observation). */
  ratio: number;
  /** raw × ratio, rounded up: the figure to compare with a budget. */
  total: number;
  /** Raw parts of `raw`. */
  text: number;
  images: number;
  imageCount: number;
  /** Rows by author and kind, largest first; their tokens sum to `total` up to rounding. */
  rows: TokenRow[];
  /**
   * Calibrated tokens per item id as sent (instructions under 'system', 'memory' and tool names), in
   * the order the view sends them: what eliding or shedding a given item would save.
   */
  perItem: Map<string, number>;
}

/** Estimates the input tokens of `wireView(provider, path, request)`. */
export function estimateTokens(
  provider: WireProvider,
  path: Parameters<typeof prepareTurns>[1],
  request: WireRequest,
  options: EstimateOptions = {},
): TokenEstimate {
  const cpt = options.charsPerToken ?? DEFAULT_CHARS_PER_TOKEN;
  if (!(cpt > 0)) throw new RangeError(`estimateTokens: charsPerToken must be positive, found ${cpt}`);
  let counter = options.imageTokens;
  if (!counter) {
    const profile = request.profile ?? resolveProfile(request.model).profile;
    // A profile without vision has no image rule; the view only sends pixels to it when the caller
    // gave no profile, so count such images at the conservative flat figure.
    counter = profile.vision ? profileCounter(profile) : () => UNKNOWN_IMAGE_TOKENS;
  }
  // Only the OpenAI views send a `detail` (always explicit, default high); others have no such knob.
  const detail = provider.startsWith('openai') ? (request.imageDetail ?? 'high') : undefined;
  const { turns, vision } = prepareTurns(provider, path, request);

  let chars = 0;
  let images = 0;
  let imageCount = 0;
  const rows = new Map<
    string,
    { author: TokenRow['author']; kind: TokenRow['kind']; ids: Set<string>; raw: number }
  >();
  const perItemRaw = new Map<string, number>();
  const add = (
    author: TokenRow['author'],
    kind: TokenRow['kind'],
    id: string,
    textChars: number,
    imageTok: number,
  ): void => {
    chars += textChars;
    images += imageTok;
    const key = `${author}/${kind}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { author, kind, ids: new Set(), raw: 0 }));
    row.ids.add(id);
    row.raw += textChars / cpt + imageTok + BLOCK_OVERHEAD;
    perItemRaw.set(id, (perItemRaw.get(id) ?? 0) + textChars / cpt + imageTok + BLOCK_OVERHEAD);
  };
  const image = (img: ImageData): number => {
    imageCount++;
    const size =
      img.width !== undefined && img.height !== undefined
        ? { width: img.width, height: img.height }
        : imageSizeBase64(img.data);
    return size ? counter(size.width, size.height, detail ? { detail } : {}) : UNKNOWN_IMAGE_TOKENS;
  };
  const parts = (ps: readonly ContentPart[]): [number, number] => {
    let c = 0;
    let t = 0;
    for (const p of ps) {
      if (p.type === 'text') c += p.text.length;
      else t += image(p);
    }
    return [c, t];
  };
  const block = (b: Block): void => {
    const { author, kind, itemId } = b.origin;
    switch (b.type) {
      case 'text':
        return add(author, kind, itemId, b.text.length, 0);
      case 'image':
        return add(author, kind, itemId, 0, image(b.image));
      case 'reasoning':
        // Encrypted reasoning is billed as the reasoning it stands for; its base64 is ~4/3 of that text.
        return add(author, kind, itemId, b.item.text.length + ((b.item.encrypted?.length ?? 0) * 3) / 4, 0);
      case 'tool_call':
        return add(author, kind, itemId, b.item.name.length + inputChars(b.item), 0);
      case 'tool_result': {
        // Without vision the view sends a tool result's images as text placeholders: count those.
        const [c, t] = parts(resultParts(b.item.content, vision));
        return add(author, kind, itemId, c + b.item.callId.length, t);
      }
    }
  };
  if (request.system) add('instructions', 'system', 'system', request.system.length, 0);
  if (request.memory) add('instructions', 'memory', 'memory', request.memory.length, 0);
  for (const t of request.tools ?? []) add('instructions', 'tools', t.name, JSON.stringify(t).length, 0);
  for (const turn of turns) for (const b of turn.blocks) block(b);

  const overhead = turns.length * TURN_OVERHEAD;
  const blockOverhead = [...rows.values()].reduce((s, r) => s + r.raw, 0) - chars / cpt - images;
  const raw = Math.ceil(chars / cpt + images + overhead + blockOverhead);
  const ratio = options.calibrator?.ratio(request.model) ?? 1;
  const total = Math.ceil(raw * ratio);
  const perTurn = turns.length > 0 ? overhead / rows.size : 0;
  const out: TokenRow[] = [...rows.values()]
    .map((r) => ({
      author: r.author,
      kind: r.kind,
      items: r.ids.size,
      tokens: Math.round((r.raw + perTurn) * ratio),
    }))
    .sort((a, b) => b.tokens - a.tokens);
  return {
    provider,
    model: request.model,
    raw,
    ratio,
    total,
    text: Math.ceil(chars / cpt),
    images,
    imageCount,
    rows: out,
    perItem: new Map([...perItemRaw].map(([id, raw]) => [id, Math.ceil(raw * ratio)])),
  };
}
