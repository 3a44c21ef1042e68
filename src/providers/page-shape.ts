/**
 * The best snapshot page for a profile: the most characters per billed token among pages the provider
 * bills without resizing (a resize destroys 5-px glyphs), within the request's image and byte limits.
 *
 * Search, not formulas: every rule's cost is a step function of W and H that only rises at multiples
 * of its grid (28-px patches, 32-px patches, 512/768-px tiles) or at a documented limit, so the widest
 * page inside each step lies on the grid or on a limit. Enumerating those sides (a few thousand pairs)
 * and keeping the best is exact, and the same code serves every rule.
 */
import { builtInLegibility, mergeLegibility, readableVariants, type LegibilityTable } from './legibility.js';
import type { CellName } from '../render/cells.js';
import { variantCell, variantId, variantOf, type Variant } from '../render/variant.js';
import { unresizedCost, unresizedTokensFn } from './image-tokens.js';
import { base64Size, pngBytesMax } from './png-size.js';
import type { Profile } from './types.js';

export interface PageShapeOptions {
  cell?: CellName;
  scale?: number;
  /**
   * A page variant (id such as `5x8+c1+r1`, or a Variant; docs/renderer.md): wins over `cell` and
   * `scale`. Its spacing widens the cell pitch; its layout does not change the shape.
   */
  variant?: string | Variant;
  /** Images the request will carry in all (Anthropic: more than 20 → every side ≤ 2000 px). */
  imagesInRequest?: number;
  /** Force a detail level instead of the profile's page levels. */
  detail?: string;
}

export interface PageShapeChoice {
  /** Canonical id of the variant the page was sized for (e.g. `4x6`, `5x8+c1+r1`). */
  variant: string;
  width: number;
  height: number;
  tokens: number;
  cols: number;
  rows: number;
  charsPerPage: number;
  charsPerToken: number;
  /** Page pixels per billed token. */
  pixelsPerToken: number;
  detail?: string;
  /** Worst-case bytes of one page as the API counts them (base64 where it counts base64). */
  bytesMax: number;
  /** Most pages of this shape one request may carry (image count, bytes, many-image rule). */
  pagesPerRequest: number;
  /** False when the provider's resize threshold is not documented (Gemini 3): measure before trusting. */
  verified: boolean;
  note?: string;
}

/** The cap on a searched page side where a rule has none (GPT-5.6 `original`): pages stay printable. */
const SEARCH_MAX_SIDE = 6000;

interface Axis {
  step: number;
  max: number;
  boundaries: number[];
}

function axisFor(profile: Profile, detail: string | undefined, imagesInRequest: number): Axis {
  const r = profile.image;
  const many = profile.images.manyImages;
  const manyCap = many && imagesInRequest > many.above ? many.maxSide : Infinity;
  let axis: Axis;
  switch (r.kind) {
    case 'anthropic-patch':
      axis = { step: r.patch, max: r.maxLongEdge, boundaries: [r.maxLongEdge] };
      break;
    case 'openai-tile':
      axis = { step: 32, max: r.box, boundaries: [r.box, r.shortSide, r.tile] };
      break;
    case 'openai-patch': {
      const level = detail === undefined ? undefined : r.details[detail];
      const max = Math.min(level?.maxSide ?? SEARCH_MAX_SIDE, SEARCH_MAX_SIDE);
      axis = { step: r.patch, max, boundaries: [max] };
      break;
    }
    case 'gemini-tile':
      axis = { step: 32, max: r.pageMaxSide, boundaries: [r.smallMax, r.tile, r.pageMaxSide] };
      break;
    case 'flat':
      axis = { step: 32, max: r.pageMaxSide, boundaries: [r.pageMaxSide] };
      break;
  }
  if (manyCap < axis.max) axis = { ...axis, max: manyCap, boundaries: [...axis.boundaries, manyCap] };
  return axis;
}

function sides(axis: Axis, min: number): number[] {
  const out = new Set<number>();
  for (let v = axis.step; v <= axis.max; v += axis.step) if (v >= min) out.add(v);
  for (const b of axis.boundaries) if (b >= min && b <= axis.max) out.add(b);
  return [...out].sort((a, b) => a - b);
}

/** Worst-case bytes of a page as `profile`'s API counts them. */
export function pageBytesMax(profile: Profile, width: number, height: number): number {
  const raw = pngBytesMax(width, height);
  return profile.images.base64Counted ? base64Size(raw) : raw;
}

/** Pages of `width`×`height` one request may carry under `profile`'s limits. */
export function pagesPerRequest(profile: Profile, width: number, height: number): number {
  const bytes = pageBytesMax(profile, width, height);
  let n = Math.min(profile.images.maxPerRequest, Math.floor(profile.images.maxBytesPerRequest / bytes));
  const many = profile.images.manyImages;
  if (many && Math.max(width, height) > many.maxSide) n = Math.min(n, many.above);
  return n;
}

function checkCount(v: number, name: string): void {
  if (!Number.isInteger(v) || v < 1)
    throw new RangeError(`${name} must be a positive integer, found ${String(v)}`);
}

/**
 * The page shape carrying the most characters per billed token that `profile`'s provider neither
 * resizes nor rejects, for glyph `cell` at integer `scale` (or `variant`). Throws for a model without vision (it cannot
 * read pages: use a summary) and for bad options.
 */
export function bestPageShape(profile: Profile, options: PageShapeOptions = {}): PageShapeChoice {
  if (!profile.vision) {
    throw new Error(
      `${profile.name} (${profile.family}) has no vision: snapshot pages cannot be read; use a summary`,
    );
  }
  const imagesInRequest = options.imagesInRequest ?? 1;
  checkCount(imagesInRequest, 'imagesInRequest');
  if (imagesInRequest > profile.images.maxPerRequest) {
    throw new RangeError(
      `imagesInRequest ${imagesInRequest} exceeds ${profile.family}'s limit of ${profile.images.maxPerRequest} images per request`,
    );
  }
  // Compaction asks per request: remember answers per profile object (profiles are never mutated; a
  // re-registered profile is a new object). The image count matters only through the many-image rule
  // and the per-image byte share, so counts that agree on both share an answer.
  const many = profile.images.manyImages;
  const bucket = `${many !== undefined && imagesInRequest > many.above ? 'many' : 'few'}:${perImageBytes(profile, imagesInRequest)}`;
  const variant = variantOf(options);
  const key = `${variantId(variant)}|${bucket}|${options.detail ?? ''}`;
  let perProfile = memo.get(profile);
  const hit = perProfile?.get(key);
  if (hit) return { ...hit };
  const choice = searchPageShape(profile, variant, options);
  if (!perProfile) memo.set(profile, (perProfile = new Map()));
  perProfile.set(key, choice);
  return { ...choice };
}

const memo = new WeakMap<Profile, Map<string, PageShapeChoice>>();

/** The bytes one page may take when `imagesInRequest` pages share the request. */
function perImageBytes(profile: Profile, imagesInRequest: number): number {
  return Math.min(
    profile.images.maxBytesPerImage,
    Math.floor(profile.images.maxBytesPerRequest / imagesInRequest),
  );
}

function searchPageShape(profile: Profile, variant: Variant, options: PageShapeOptions): PageShapeChoice {
  const cell = variantCell(variant);
  const imagesInRequest = options.imagesInRequest ?? 1;
  const r = profile.image;
  const details: (string | undefined)[] =
    options.detail !== undefined ? [options.detail] : 'pageDetails' in r ? r.pageDetails : [undefined];
  const byteLimit = perImageBytes(profile, imagesInRequest);

  // The best so far, as scalars: the loop visits up to ~35,000 pages and allocates nothing.
  let found = false;
  let bw = 0;
  let bh = 0;
  let bTokens = 0;
  let bChars = 0;
  let bDetail: string | undefined;
  for (const detail of details) {
    const axis = axisFor(profile, detail, imagesInRequest);
    const widths = sides(axis, 2 * cell.width);
    const heights = sides(axis, 2 * cell.height);
    const tokensOf = unresizedTokensFn(profile, detail === undefined ? {} : { detail });
    // Where vendor pages disagree on a patch budget, pages keep under the smaller one.
    const shapeBudget =
      r.kind === 'openai-patch' && detail !== undefined ? r.details[detail]?.shapeBudget : undefined;
    const patch = r.kind === 'openai-patch' ? r.patch : 1;
    // The byte bound only grows with the page: when the largest page searched fits, none needs checking.
    const lastW = widths[widths.length - 1];
    const lastH = heights[heights.length - 1];
    const checkBytes =
      lastW !== undefined && lastH !== undefined && pageBytesMax(profile, lastW, lastH) > byteLimit;
    for (const width of widths) {
      const cols = Math.floor(width / cell.width);
      // Heights ascend, and every limit (resize threshold, patch budget, bytes) only tightens as the
      // page grows, so the first height that fails ends this width.
      for (const height of heights) {
        if (shapeBudget !== undefined && Math.ceil(width / patch) * Math.ceil(height / patch) > shapeBudget) {
          break;
        }
        const tokens = tokensOf(width, height);
        if (tokens < 0) break;
        if (checkBytes && pageBytesMax(profile, width, height) > byteLimit) break;
        const chars = cols * Math.floor(height / cell.height);
        // Better: more chars per token, then more chars, fewer tokens, landscape, smaller area.
        let better = !found;
        if (!better) {
          const lhs = chars * bTokens;
          const rhs = bChars * tokens;
          if (lhs !== rhs) better = lhs > rhs;
          else if (chars !== bChars) better = chars > bChars;
          else if (tokens !== bTokens) better = tokens < bTokens;
          else if (width >= height !== bw >= bh) better = width >= height;
          else better = width * height < bw * bh;
        }
        if (better) {
          found = true;
          bw = width;
          bh = height;
          bTokens = tokens;
          bChars = chars;
          bDetail = detail;
        }
      }
    }
  }
  if (!found) {
    throw new Error(`no page of variant ${variantId(variant)} fits ${profile.family} without resizing`);
  }
  // The winner's cost from the reference rule: the same tokens, and the detail level as applied.
  const cost = unresizedCost(profile, bw, bh, bDetail === undefined ? {} : { detail: bDetail });
  /* c8 ignore next */
  if (cost?.tokens !== bTokens) throw new Error(`page search disagrees with the image rule at ${bw}x${bh}`);
  const verified = r.kind !== 'flat' || r.verified;
  const choice: PageShapeChoice = {
    variant: variantId(variant),
    width: bw,
    height: bh,
    tokens: bTokens,
    cols: Math.floor(bw / cell.width),
    rows: Math.floor(bh / cell.height),
    charsPerPage: bChars,
    charsPerToken: bChars / bTokens,
    pixelsPerToken: (bw * bh) / bTokens,
    bytesMax: pageBytesMax(profile, bw, bh),
    pagesPerRequest: pagesPerRequest(profile, bw, bh),
    verified,
  };
  if (cost.detail !== undefined) choice.detail = cost.detail;
  if (!verified) {
    choice.note = `${profile.name}: the size at which the provider resizes images is undocumented; ${bw}x${bh} is an assumption. Snapshots are unverified for this model until measured.`;
  }
  return choice;
}

/**
 * The widest page the provider takes without resizing, then the tallest at that width: the pixel-level
 * "best page" the vendor tables quote (1568×784 on Claude's standard tier, 2048×1248 on GPT-5.4 `high`).
 * Independent of any cell; `bestPageShape` picks, for a cell, the page with the most characters per token.
 */
export function largestPage(
  profile: Profile,
  options: { imagesInRequest?: number; detail?: string } = {},
): { width: number; height: number; tokens: number; detail?: string } {
  const imagesInRequest = options.imagesInRequest ?? 1;
  checkCount(imagesInRequest, 'imagesInRequest');
  if (!profile.vision) throw new Error(`${profile.name} (${profile.family}) has no vision`);
  const r = profile.image;
  const detail = options.detail ?? ('pageDetails' in r ? r.pageDetails[0] : undefined);
  const axis = axisFor(profile, detail, imagesInRequest);
  // Grid-aligned sides only: the tables quote whole patches and tiles.
  const all = sides(axis, 1)
    .filter((v) => v % axis.step === 0)
    .reverse();
  const shapeBudget =
    r.kind === 'openai-patch' && detail !== undefined ? r.details[detail]?.shapeBudget : undefined;
  for (const width of all) {
    for (const height of all) {
      if (shapeBudget !== undefined && r.kind === 'openai-patch') {
        if (Math.ceil(width / r.patch) * Math.ceil(height / r.patch) > shapeBudget) continue;
      }
      const cost = unresizedCost(profile, width, height, detail === undefined ? {} : { detail });
      if (cost)
        return { width, height, tokens: cost.tokens, ...(cost.detail ? { detail: cost.detail } : {}) };
    }
  }
  /* c8 ignore next */
  throw new Error(`no unresized page for ${profile.family}`);
}

/** A legible page: the shape, the variant's measured legibility, and why it was chosen. */
export interface LegiblePageChoice extends PageShapeChoice {
  legibility: {
    /** Measured CER of the variant (for `family`'s readers). */
    cer: number;
    family: string;
    source: string;
    maxCer: number;
    /** Set when nothing was measured within the floor (see readableVariants). */
    fallback?: 'family' | 'any-family';
    note?: string;
  };
}

/**
 * The page a snapshot of unknown text should use for `profile`: among the variants whose measured
 * CER for the profile's reader family is within `maxCer` (default 1%; src/providers/legibility.json,
 * with `legibility` — your own measurements — laid over it), the one whose best page carries the most
 * characters per token (ties to the more legible). `bestPageShape` sizes a page for a variant you
 * name; this chooses the variant. The snapshot rung refines the choice on the actual text (page
 * width per content, docs/compaction.md).
 */
export function legiblePageShape(
  profile: Profile,
  options: Omit<PageShapeOptions, 'cell' | 'scale' | 'variant'> & {
    maxCer?: number;
    legibility?: LegibilityTable;
  } = {},
): LegiblePageChoice {
  const table = options.legibility
    ? mergeLegibility(builtInLegibility(), options.legibility)
    : builtInLegibility();
  const selection = readableVariants(table, profile.readerFamily, options.maxCer);
  const { maxCer: _maxCer, legibility: _table, ...shapeOptions } = options;
  let best: LegiblePageChoice | undefined;
  for (const r of selection.variants) {
    const shape = bestPageShape(profile, { ...shapeOptions, variant: r.variant });
    if (best && shape.charsPerToken <= best.charsPerToken) continue;
    best = {
      ...shape,
      legibility: {
        cer: r.measurement.cer,
        family: r.family,
        source: r.measurement.source,
        maxCer: selection.maxCer,
        ...(selection.fallback ? { fallback: selection.fallback } : {}),
        ...(selection.note ? { note: selection.note } : {}),
      },
    };
  }
  /* c8 ignore next */
  if (!best) throw new Error('legiblePageShape: the legibility selection is empty');
  return best;
}
