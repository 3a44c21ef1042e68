/**
 * The shapes of provider profiles. A profile is data about a model family as a route names it; the
 * figures live in `profiles/*.json` (each with its source and date) and are validated on load
 * (`validate.ts`), so nothing here holds a number about a vendor.
 */

export type Provider = 'anthropic' | 'openai' | 'gemini';
export const PROVIDERS: readonly Provider[] = ['anthropic', 'openai', 'gemini'];

/** How a request reached the model; decides route limits (image bytes, payload) and gateway rules. */
export type Route =
  'anthropic' | 'bedrock' | 'vertex' | 'openrouter' | 'vercel' | 'openai' | 'gemini' | 'unknown';
export const ROUTES: readonly Route[] = [
  'anthropic',
  'bedrock',
  'vertex',
  'openrouter',
  'vercel',
  'openai',
  'gemini',
  'unknown',
];

/**
 * Anthropic: ⌈w/28⌉ × ⌈h/28⌉ tokens; an image whose 28-rounded long edge exceeds `maxLongEdge` or whose
 * tokens exceed `maxTokens` is resized to the largest aspect-preserving size within both.
 */
export interface AnthropicPatchRule {
  kind: 'anthropic-patch';
  patch: number;
  maxLongEdge: number;
  maxTokens: number;
}

/**
 * OpenAI tile models: `high`/`auto` fit the image in `box`×`box`, scale the short side down to
 * `shortSide`, count `tile`-px tiles; tokens = base + tiles × perTile. `low` = base only.
 */
export interface OpenAITileRule {
  kind: 'openai-tile';
  box: number;
  shortSide: number;
  tile: number;
  baseTokens: number;
  tileTokens: number;
  /** Detail levels the model accepts, and what `auto`/omitted means. */
  details: string[];
  defaultDetail: string;
  /** Detail levels a snapshot page may use (a level that shows the model a smaller copy would blur glyphs). */
  pageDetails: string[];
}

/** One detail level of a patch model: the box the image is fitted into and its patch budget (null = none). */
export interface PatchDetail {
  maxSide: number | null;
  patchBudget: number | null;
  /** A lower budget the page-shape search keeps under when vendor pages disagree (see the profile's notes). */
  shapeBudget?: number;
}

/** OpenAI patch models: 32-px patches; fit into the detail's box and budget; tokens = ⌈patches × multiplier⌉. */
export interface OpenAIPatchRule {
  kind: 'openai-patch';
  patch: number;
  multiplier: number;
  details: Record<string, PatchDetail>;
  defaultDetail: string;
  pageDetails: string[];
}

/** Gemini 2.x: both sides ≤ `smallMax` → `smallTokens`; else `tile`-px tiles at `tileTokens` each. */
export interface GeminiTileRule {
  kind: 'gemini-tile';
  smallMax: number;
  smallTokens: number;
  tile: number;
  tileTokens: number;
  /** Largest page side the shape search uses: the tiling of larger images is not documented. */
  pageMaxSide: number;
}

/**
 * A flat price per image whatever its size (Gemini 3 `media_resolution`). The processor resizes to a
 * size it does not document; `pageMaxSide` is the assumed no-resize side, `verified` says whether anyone
 * measured it.
 */
export interface FlatRule {
  kind: 'flat';
  details: Record<string, number>;
  defaultDetail: string;
  pageDetails: string[];
  pageMaxSide: number;
  verified: boolean;
}

export type ImageRule = AnthropicPatchRule | OpenAITileRule | OpenAIPatchRule | GeminiTileRule | FlatRule;
export type ImageRuleKind = ImageRule['kind'];

export interface ImageLimits {
  maxPerRequest: number;
  /** Bytes of one image as sent (base64 where the API counts base64). */
  maxBytesPerImage: number;
  maxBytesPerRequest: number;
  /** True when the limits count the base64 text rather than the raw file. */
  base64Counted: boolean;
  /** More than `above` images in one request → every side must be ≤ `maxSide` (Anthropic). */
  manyImages?: { above: number; maxSide: number };
  formats?: string[];
}

export interface CacheMultipliers {
  /** Price of writing a cached prefix, as a multiple of the input price (1 = no surcharge). */
  writeMultiplier: number;
  /** Price of reading a cached prefix, as a multiple of the input price. */
  readMultiplier: number;
  /** Anthropic's 1-hour cache write. */
  writeMultiplier1h?: number;
  /** Most explicit cache breakpoints one request may set (Anthropic: 4 `cache_control` blocks). */
  maxBreakpoints?: number;
  /** Shortest prefix the provider caches (OpenAI: automatic from 1024 tokens). */
  minTokens?: number;
}

/** Where a figure comes from. `fields` name profile paths (`contextWindow`, `image.multiplier`, `image`). */
export interface SourceRef {
  fields: string[];
  ref: string;
  note?: string;
}

/** A figure a vendor page gives differently from the one used. */
export interface Alternative {
  field: string;
  value: unknown;
  ref: string;
  note: string;
}

export interface Reference {
  title: string;
  url?: string;
  date: string;
}

export interface Profile {
  /** Normalised id prefix this profile applies to, e.g. `claude-opus-4-7`, `gpt-5-5`, `gemini-2-5-pro`. */
  family: string;
  provider: Provider;
  name: string;
  contextWindow: number;
  maxOutput: number;
  vision: boolean;
  /**
   * Which family of vision readers the model belongs to (`claude`, `gpt`, `gemini`): the key under
   * which the legibility table (legibility.json) holds measured error rates of snapshot pages.
   */
  readerFamily?: string;
  images: ImageLimits;
  image: ImageRule;
  cache: CacheMultipliers;
  /** Regular expressions (JS syntax) with named groups `measured` and `limit` where the message has them. */
  overflowPatterns: string[];
  /** A catch-all for a vendor (`claude`, `gpt`, `gemini`): matching only it means the id was guessed. */
  generic: boolean;
  notes: string[];
  sources: SourceRef[];
  alternatives: Alternative[];
}

/** A gateway or cloud route's own rules, applied over the upstream profile. */
export interface RouteRule {
  route: Route;
  /** Upstream providers the rule applies to (all when absent). */
  providers?: Provider[];
  /** Cap on one image's bytes on this route (the smaller of route and profile applies). */
  maxBytesPerImage?: number;
  maxBytesPerRequest?: number;
  base64Only?: boolean;
  /** Replace the upstream image rule for these providers (e.g. a gateway's flat price per image). */
  image?: Partial<Record<Provider, ImageRule>>;
  notes: string[];
  sources: SourceRef[];
}

export interface ResolvedProfile {
  /** The upstream profile with the route's limits applied. */
  profile: Profile;
  /** The id as given. */
  id: string;
  /** The id after stripping the route's decorations (ARN, geo and vendor prefixes, dates, variants). */
  normalizedId: string;
  route: Route;
  guessed: boolean;
  note?: string;
}
