/**
 * Image token rules, one small pure function per vendor rule. Each returns what the provider does
 * with a W×H image: the size it processes and the tokens it bills. Sources: PROVIDERS.md and the
 * vendor pages named in the profile files.
 */
import type {
  AnthropicPatchRule,
  FlatRule,
  GeminiTileRule,
  OpenAIPatchRule,
  OpenAITileRule,
  Profile,
} from './types.js';

export interface ImageOptions {
  /** OpenAI `detail` (`low`, `high`, `original`, `auto`) or Gemini 3 `media_resolution` (`low` … `ultra_high`). */
  detail?: string;
}

/** What the provider makes of one image. */
export interface ImageCost {
  tokens: number;
  /** The size the provider processes; equal to the input when nothing is resized. */
  width: number;
  height: number;
  resized: boolean;
  /** The detail level applied (after resolving `auto`), where the rule has levels. */
  detail?: string;
  /** True when the processed size is not documented (flat-priced rules): `resized` is then a guess. */
  sizeUnknown?: boolean;
}

function checkSize(width: number, height: number): void {
  for (const [name, v] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
      throw new RangeError(`image ${name} must be a positive integer number of pixels, found ${String(v)}`);
    }
  }
}

function pickDetail(
  detail: string | undefined,
  known: readonly string[],
  fallback: string,
  model: string,
): string {
  const d = detail === undefined || detail === 'auto' ? fallback : detail;
  if (!known.includes(d)) {
    throw new RangeError(
      `unknown detail '${String(detail)}' for ${model}: expected one of ${[...known, 'auto'].join(', ')}`,
    );
  }
  return d;
}

const ceilDiv = (a: number, b: number): number => Math.ceil(a / b);

// ---------------------------------------------------------------- Anthropic

function anthropicTokens(rule: AnthropicPatchRule, w: number, h: number): number {
  return ceilDiv(w, rule.patch) * ceilDiv(h, rule.patch);
}

function anthropicFits(rule: AnthropicPatchRule, w: number, h: number): boolean {
  // The long-edge limit is checked on the size padded to whole patches.
  const longEdge = Math.max(ceilDiv(w, rule.patch), ceilDiv(h, rule.patch)) * rule.patch;
  return longEdge <= rule.maxLongEdge && anthropicTokens(rule, w, h) <= rule.maxTokens;
}

/** Largest aspect-preserving size meeting both limits: walk the long side down from the bound. */
function anthropicCost(rule: AnthropicPatchRule, w: number, h: number): ImageCost {
  if (anthropicFits(rule, w, h))
    return { tokens: anthropicTokens(rule, w, h), width: w, height: h, resized: false };
  const long = Math.max(w, h);
  const short = Math.min(w, h);
  // Area bound: tokens ≥ w·h/patch², so the long side cannot exceed this (plus a patch of slack).
  const areaBound =
    Math.floor(long * Math.sqrt((rule.maxTokens * rule.patch * rule.patch) / (w * h))) + rule.patch;
  for (let L = Math.min(long - 1, rule.maxLongEdge, areaBound); L >= 1; L--) {
    const S = Math.max(1, Math.round((short * L) / long));
    const [rw, rh] = w >= h ? [L, S] : [S, L];
    if (anthropicFits(rule, rw, rh)) {
      return { tokens: anthropicTokens(rule, rw, rh), width: rw, height: rh, resized: true };
    }
  }
  /* c8 ignore next */
  throw new Error(`no size of ${w}x${h} fits the limits ${rule.maxLongEdge} px and ${rule.maxTokens} tokens`);
}

// ---------------------------------------------------------------- OpenAI tiles

function tileCost(rule: OpenAITileRule, w: number, h: number, detail: string): ImageCost {
  if (detail === 'low') {
    // The model sees a copy within 512×512 for the base tokens.
    const s = Math.min(1, 512 / Math.max(w, h));
    return {
      tokens: rule.baseTokens,
      width: Math.max(1, Math.round(w * s)),
      height: Math.max(1, Math.round(h * s)),
      resized: s < 1,
      detail,
    };
  }
  let sw = w;
  let sh = h;
  // 1. Fit within box×box.
  if (Math.max(sw, sh) > rule.box) {
    const s = rule.box / Math.max(sw, sh);
    sw = Math.max(1, Math.floor(sw * s));
    sh = Math.max(1, Math.floor(sh * s));
  }
  // 2. Scale down so the short side is at most shortSide (never up).
  if (Math.min(sw, sh) > rule.shortSide) {
    const s = rule.shortSide / Math.min(sw, sh);
    sw = Math.max(1, Math.floor(sw * s));
    sh = Math.max(1, Math.floor(sh * s));
  }
  const tiles = ceilDiv(sw, rule.tile) * ceilDiv(sh, rule.tile);
  return {
    tokens: rule.baseTokens + tiles * rule.tileTokens,
    width: sw,
    height: sh,
    resized: sw !== w || sh !== h,
    detail,
  };
}

// ---------------------------------------------------------------- OpenAI patches

/**
 * Patch budget fitting, as the OpenAI vision guide writes it:
 *   shrink = sqrt(32² × budget / (w × h))
 *   adjusted = shrink × min(floor(w·shrink/32) / (w·shrink/32), floor(h·shrink/32) / (h·shrink/32))
 *   resized = integer pixel size at `adjusted`; patches = ⌈w'/32⌉ × ⌈h'/32⌉ (≤ budget)
 */
export function fitPatchBudget(
  w: number,
  h: number,
  patch: number,
  budget: number,
): { width: number; height: number } {
  const shrink = Math.sqrt((patch * patch * budget) / (w * h));
  const ws = (w * shrink) / patch;
  const hs = (h * shrink) / patch;
  const ratio = (x: number): number => (x >= 1 ? Math.floor(x) / x : 1);
  const adjusted = shrink * Math.min(ratio(ws), ratio(hs));
  // The epsilon keeps 1056.0000000001-style float noise from costing a pixel (1800×2400 → 1056×1408).
  const width = Math.max(1, Math.floor(w * adjusted + 1e-9));
  const height = Math.max(1, Math.floor(h * adjusted + 1e-9));
  return { width, height };
}

function patchCost(rule: OpenAIPatchRule, w: number, h: number, detail: string): ImageCost {
  const level = rule.details[detail];
  /* c8 ignore next */
  if (!level) throw new RangeError(`unknown detail '${detail}'`);
  let sw = w;
  let sh = h;
  if (level.maxSide !== null && Math.max(sw, sh) > level.maxSide) {
    const s = level.maxSide / Math.max(sw, sh);
    sw = Math.max(1, Math.floor(sw * s));
    sh = Math.max(1, Math.floor(sh * s));
  }
  const patches = (a: number, b: number): number => ceilDiv(a, rule.patch) * ceilDiv(b, rule.patch);
  if (level.patchBudget !== null && patches(sw, sh) > level.patchBudget) {
    ({ width: sw, height: sh } = fitPatchBudget(sw, sh, rule.patch, level.patchBudget));
  }
  const count = level.patchBudget === null ? patches(sw, sh) : Math.min(level.patchBudget, patches(sw, sh));
  // Float noise guard: 2496 × 1.2 must be 2996, not 2995.2000000000003 → 2996 anyway, but 1024 × 1.2 = 1228.8.
  const tokens = Math.ceil(count * rule.multiplier - 1e-9);
  return { tokens, width: sw, height: sh, resized: sw !== w || sh !== h, detail };
}

// ---------------------------------------------------------------- Gemini

function geminiTileCost(rule: GeminiTileRule, w: number, h: number): ImageCost {
  if (w <= rule.smallMax && h <= rule.smallMax)
    return { tokens: rule.smallTokens, width: w, height: h, resized: false };
  const tiles = ceilDiv(w, rule.tile) * ceilDiv(h, rule.tile);
  // "Cropped and scaled as needed into 768×768 tiles": how is not documented, so anything larger than
  // one tile counts as possibly resized.
  const oneTile = w <= rule.tile && h <= rule.tile;
  return {
    tokens: tiles * rule.tileTokens,
    width: w,
    height: h,
    resized: !oneTile,
    ...(oneTile ? {} : { sizeUnknown: true }),
  };
}

function flatCost(rule: FlatRule, w: number, h: number, detail: string): ImageCost {
  const tokens = rule.details[detail];
  /* c8 ignore next */
  if (tokens === undefined) throw new RangeError(`unknown detail '${detail}'`);
  return {
    tokens,
    width: w,
    height: h,
    resized: Math.max(w, h) > rule.pageMaxSide,
    detail,
    sizeUnknown: true,
  };
}

// ---------------------------------------------------------------- public

/** Detail levels a profile's rule accepts (empty for rules without levels). */
export function detailLevels(profile: Profile): string[] {
  const r = profile.image;
  switch (r.kind) {
    case 'openai-tile':
      return r.details.filter((d) => d !== 'auto');
    case 'openai-patch':
    case 'flat':
      return Object.keys(r.details);
    default:
      return [];
  }
}

/**
 * What `profile`'s provider does with a `width`×`height` image: processed size, tokens, whether it
 * resizes. Throws a RangeError for sizes that are not positive integers or a detail level the model
 * does not have, and an Error for a model without vision.
 */
export function imageCost(
  profile: Profile,
  width: number,
  height: number,
  options: ImageOptions = {},
): ImageCost {
  checkSize(width, height);
  if (!profile.vision) {
    throw new Error(`${profile.name} (${profile.family}) has no vision: it cannot read images`);
  }
  const r = profile.image;
  const model = `${profile.name} (${profile.family})`;
  switch (r.kind) {
    case 'anthropic-patch':
    case 'gemini-tile':
      if (options.detail !== undefined && options.detail !== 'auto') {
        throw new RangeError(
          `unknown detail '${options.detail}' for ${model}: this model has no detail levels`,
        );
      }
      return r.kind === 'anthropic-patch'
        ? anthropicCost(r, width, height)
        : geminiTileCost(r, width, height);
    case 'openai-tile':
      return tileCost(
        r,
        width,
        height,
        pickDetail(options.detail, detailLevels(profile), r.defaultDetail, model),
      );
    case 'openai-patch':
      return patchCost(
        r,
        width,
        height,
        pickDetail(options.detail, detailLevels(profile), r.defaultDetail, model),
      );
    case 'flat':
      return flatCost(
        r,
        width,
        height,
        pickDetail(options.detail, detailLevels(profile), r.defaultDetail, model),
      );
  }
}

/**
 * The cost of an image the provider takes as it is, or undefined when it would resize it. Same result
 * as {@link imageCost} for unresized images, without computing the resized size (the page search
 * calls this thousands of times).
 */
export function unresizedCost(
  profile: Profile,
  width: number,
  height: number,
  options: ImageOptions = {},
): ImageCost | undefined {
  const r = profile.image;
  if (
    r.kind === 'anthropic-patch' &&
    profile.vision &&
    (options.detail === undefined || options.detail === 'auto')
  ) {
    checkSize(width, height);
    return anthropicFits(r, width, height)
      ? { tokens: anthropicTokens(r, width, height), width, height, resized: false }
      : undefined;
  }
  const cost = imageCost(profile, width, height, options);
  return cost.resized ? undefined : cost;
}

/** Tokens billed for one `width`×`height` image (see {@link imageCost}). */
export function imageTokens(
  profile: Profile,
  width: number,
  height: number,
  options: ImageOptions = {},
): number {
  return imageCost(profile, width, height, options).tokens;
}

/**
 * True when the provider would process a smaller copy of the image (which destroys 1-px strokes).
 * `imagesInRequest` applies Anthropic's many-image rule (more than 20 → every side ≤ 2000 px, else an error).
 */
export function wouldResize(
  profile: Profile,
  width: number,
  height: number,
  options: ImageOptions & { imagesInRequest?: number } = {},
): boolean {
  const cost = imageCost(profile, width, height, options);
  if (cost.resized) return true;
  const many = profile.images.manyImages;
  if (many && (options.imagesInRequest ?? 1) > many.above && Math.max(width, height) > many.maxSide)
    return true;
  return false;
}

/**
 * A fast form of {@link unresizedCost} for searches: for one profile and detail level, a function of
 * (width, height) giving the tokens billed when the provider takes the image as it is, or -1 when it
 * would resize it. Plain arithmetic per call, no allocation; the property tests check it agrees with
 * {@link unresizedCost}. Throws for an unknown detail level and a model without vision.
 */
export function unresizedTokensFn(
  profile: Profile,
  options: ImageOptions = {},
): (width: number, height: number) => number {
  if (!profile.vision) {
    throw new Error(`${profile.name} (${profile.family}) has no vision: it cannot read images`);
  }
  const r = profile.image;
  const model = `${profile.name} (${profile.family})`;
  switch (r.kind) {
    case 'anthropic-patch': {
      if (options.detail !== undefined && options.detail !== 'auto') {
        throw new RangeError(
          `unknown detail '${options.detail}' for ${model}: this model has no detail levels`,
        );
      }
      const { patch, maxLongEdge, maxTokens } = r;
      return (w, h) => {
        const pw = Math.ceil(w / patch);
        const ph = Math.ceil(h / patch);
        const tokens = pw * ph;
        return Math.max(pw, ph) * patch > maxLongEdge || tokens > maxTokens ? -1 : tokens;
      };
    }
    case 'gemini-tile': {
      if (options.detail !== undefined && options.detail !== 'auto') {
        throw new RangeError(
          `unknown detail '${options.detail}' for ${model}: this model has no detail levels`,
        );
      }
      const { smallMax, smallTokens, tile, tileTokens } = r;
      return (w, h) => {
        if (w <= smallMax && h <= smallMax) return smallTokens;
        return w <= tile && h <= tile ? Math.ceil(w / tile) * Math.ceil(h / tile) * tileTokens : -1;
      };
    }
    case 'openai-tile': {
      const detail = pickDetail(options.detail, detailLevels(profile), r.defaultDetail, model);
      const { box, shortSide, tile, baseTokens, tileTokens } = r;
      if (detail === 'low') return (w, h) => (Math.max(w, h) > 512 ? -1 : baseTokens);
      return (w, h) =>
        Math.max(w, h) > box || Math.min(w, h) > shortSide
          ? -1
          : baseTokens + Math.ceil(w / tile) * Math.ceil(h / tile) * tileTokens;
    }
    case 'openai-patch': {
      const detail = pickDetail(options.detail, detailLevels(profile), r.defaultDetail, model);
      const level = r.details[detail]!;
      const maxSide = level.maxSide ?? Infinity;
      const budget = level.patchBudget ?? Infinity;
      const { patch, multiplier } = r;
      return (w, h) => {
        if (Math.max(w, h) > maxSide) return -1;
        const count = Math.ceil(w / patch) * Math.ceil(h / patch);
        return count > budget ? -1 : Math.ceil(count * multiplier - 1e-9);
      };
    }
    case 'flat': {
      const detail = pickDetail(options.detail, detailLevels(profile), r.defaultDetail, model);
      const tokens = r.details[detail]!;
      const { pageMaxSide } = r;
      return (w, h) => (Math.max(w, h) > pageMaxSide ? -1 : tokens);
    }
  }
}
