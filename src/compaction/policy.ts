/**
 * Policy: when to compact, and what to do when the provider says the request was too long.
 *
 * Proactive: before a call, estimate the request; if `shouldCompact` says so (over the trigger, or a
 * cold cache past the early mark), climb the ladder. Reactive: on an overflow error (Anthropic, OpenAI,
 * Gemini messages, parsed by `parseOverflowError`), feed the provider's measured count to the
 * calibrator, rebuild with the corrected estimates and retry once. Snapshots need no model call, so they
 * stay available in that moment; the summary rung too, in chunks that fit.
 *
 * This module wires the real parts (profiles, renderer, views, token estimates) into the pure ladder.
 */
import {
  DEFAULT_MAX_CER,
  bestPageShape,
  builtInLegibility,
  measuredCer,
  mergeLegibility,
  readableVariants,
  validateLegibility,
  detailLevels,
  imageTokens,
  pageBytesMax,
  parseOverflowError,
  wouldResize,
  resolveProfile,
  type LegibilityTable,
  type OverflowInfo,
  type Profile,
  type ResolvedProfile,
} from '../providers/index.js';
import {
  countPages,
  render,
  variantCell,
  variantId,
  variantOf,
  type CellName,
  type Variant,
} from '../render/index.js';
import { Calibrator, estimateTokens } from '../tokens/index.js';
import type { Item } from '../transcript/items.js';
import {
  wireView,
  type Repair,
  type WireBodies,
  type WireProvider,
  type WireRequest,
} from '../views/index.js';
import { computeBudget, type Budget, type BudgetOptions } from './budget.js';
import { shouldCompact, cacheStatus, type CacheState, type Decision } from './economics.js';
import { itemEstimator, textEstimator } from './estimate.js';
import { climb, type LadderOptions, type LadderResult } from './ladder.js';
import type { CompactionRecord } from './record.js';
import { pageVariant, type PageSpec, type SnapshotRenderer, type SnapshotRenderOptions } from './snapshot.js';
import type { PageCandidate } from './page-width.js';
import type { SnapshotLegibility } from './report.js';
import { DEFAULT_LADDER } from './rungs.js';

/** Where an early (cold-cache) compaction aims, as a fraction of the trigger. */
export const EARLY_TARGET = 0.6;

/** The renderer the ladder uses: the library's own (WASM core where available). */
export const RENDERER: SnapshotRenderer = {
  countPages: (text, options) => countPages(text, options),
  render: (text, options) => render(text, options),
};

/**
 * Renders a text's pages as `render()` does, byte for byte, somewhere else: a `RenderPool` of
 * `glyphfold/render/node` (worker threads) is one. Compaction stays edge-safe by taking it as an
 * option instead of importing it.
 */
export interface PagePool {
  render(
    text: string,
    options: SnapshotRenderOptions,
  ): Promise<{ pages: { width: number; height: number; chars: number; png: Uint8Array }[]; bytes: number }>;
}

/**
 * Snapshot texts of at least this many pages go to the pool; shorter ones render on the calling
 * thread, where a page costs no message round trip (most runs between person messages are a page).
 */
export const POOL_MIN_PAGES = 16;

/** The library's renderer, with large snapshot texts rendered by `pool` (the same bytes). */
export function pooledRenderer(pool: PagePool): SnapshotRenderer {
  return {
    countPages: RENDERER.countPages,
    render: (text, options) =>
      RENDERER.countPages(text, options).pages >= POOL_MIN_PAGES
        ? pool.render(text, options)
        : RENDERER.render(text, options),
  };
}

/** The wire format a provider's models are called with by default. */
export const DEFAULT_WIRE: Readonly<Record<Profile['provider'], WireProvider>> = {
  anthropic: 'anthropic',
  openai: 'openai-responses',
  gemini: 'gemini',
};

export interface CompactionOptions<P extends WireProvider = WireProvider> {
  /** Model id as the route names it (`claude-sonnet-4-5`, `us.anthropic.…`, `openai/gpt-5.5`). */
  model: string;
  /**
   * Wire format; default from the profile's provider. Naming it types the prepared body for that
   * provider (`wire: 'anthropic'` → a body `messages.create` takes).
   */
  wire?: P;
  /** Everything else the request carries (system, memory, tools, maxTokens, imageDetail). */
  request?: Omit<WireRequest, 'model' | 'profile'>;
  budget?: BudgetOptions;
  calibrator?: Calibrator;
  /** The rungs to climb, in order (default `DEFAULT_LADDER`; see rung.ts for custom rungs). */
  ladder?: LadderOptions['ladder'];
  /** Which rungs of the ladder may run, by name (default all). */
  rungs?: LadderOptions['rungs'];
  /**
   * Deflate for snapshot pages: 'default' (the WASM core's page deflate, about a fifth of the stored
   * size and the same bytes on every runtime) or 'fastest' (stored blocks).
   */
  compression?: 'default' | 'fastest';
  /**
   * Snapshot pages: `maxCer` is the legibility floor, the highest measured character error rate a
   * page variant may have for the model's reader family (default 0.01 = 1%). See docs/compaction.md.
   */
  snapshot?: { maxCer?: number };
  /**
   * Measured legibility over the built-in table (`legibility.json`): a parsed table file (validated
   * here) or a validated table, e.g. the results of your own probe. Its measurements win per variant
   * and reader family.
   */
  legibility?: unknown;
  /**
   * A page variant to use whatever its measured legibility (e.g. `5x8+c1+r1`, docs/renderer.md); the
   * report still gives its expected error rate when one is measured. Wins over `cell` and `scale`.
   */
  variant?: string;
  /** Snapshot glyph cell and scale: like `variant` (a forced choice), for the plain variants. */
  cell?: CellName;
  scale?: number;
  elide?: LadderOptions['elide'];
  shed?: LadderOptions['shed'];
  summarizer?: LadderOptions['summarizer'];
  cache?: CacheState;
  /**
   * Renders snapshot texts of `POOL_MIN_PAGES` pages or more, e.g. `createRenderPool()` of
   * `glyphfold/render/node` (worker threads, Node); the pages are the same bytes either way.
   */
  pool?: PagePool;
  /** Resolved profile to use instead of resolving `model` (tests, user profiles). */
  resolved?: ResolvedProfile;
}

/** Everything the ladder needs for one model, computed once. */
export interface CompactionSetup {
  resolved: ResolvedProfile;
  profile: Profile;
  budget: Budget;
  wire: WireProvider;
  request: WireRequest;
  page?: PageSpec;
  /** Pages of every admissible variant and width the snapshot rung chooses from per pass. */
  pages?: PageCandidate[];
  /** How legible each candidate variant is expected to be, and how the variants were admitted. */
  legibility?: PageLegibility;
  notes: string[];
  calibrator: Calibrator;
}

/** Resolves the profile, budget, wire format and snapshot page for `options.model`. */
export function setupCompaction(options: CompactionOptions): CompactionSetup {
  const resolved = options.resolved ?? resolveProfile(options.model);
  const profile = resolved.profile;
  const notes: string[] = [];
  if (resolved.guessed)
    notes.push(`profile guessed for '${options.model}': ${resolved.note ?? 'most conservative'}`);
  const budget = computeBudget(profile, options.budget);
  const wire = options.wire ?? DEFAULT_WIRE[profile.provider];
  const request: WireRequest = { model: options.model, ...options.request, profile };
  let page: PageSpec | undefined;
  let pages: PageCandidate[] | undefined;
  // Bad legibility options (a table, a floor, a variant) are the caller's error: thrown, not noted.
  const legibility = profile.vision ? pageLegibility(profile, options) : undefined;
  if (legibility) {
    try {
      const imagesInRequest = Math.min(profile.images.maxPerRequest, 50);
      // The most legible variant sizes its page first and sets the detail level; the other variants
      // are sized at that level (a request has one), and a variant no page fits is left out.
      pages = [];
      let detail: string | undefined;
      const skipped: string[] = [];
      for (const [id, expected] of legibility.expected) {
        let shape;
        try {
          shape = bestPageShape(profile, {
            variant: id,
            imagesInRequest,
            ...(page && detail !== undefined ? { detail } : {}),
          });
        } catch (err) {
          if (!page && legibility.expected.size === 1) throw err;
          skipped.push(`${id} (${(err as Error).message})`);
          continue;
        }
        const v = variantOf({ variant: id });
        const spec: PageSpec = {
          width: shape.width,
          height: shape.height,
          cell: v.cell,
          scale: v.scale,
          spacing: { x: v.spacing.x, y: v.spacing.y },
          layout: v.layout,
          variant: id,
          tokens: shape.tokens,
          compression: options.compression ?? 'default',
        };
        if (!page) {
          page = spec;
          detail = shape.detail;
          if (shape.detail && request.imageDetail === undefined)
            request.imageDetail = shape.detail as WireRequest['imageDetail'];
          if (!shape.verified && shape.note) notes.push(shape.note);
        }
        const cer = expected?.cer;
        for (const c of pageCandidates(profile, spec, shape.detail, imagesInRequest))
          pages.push(cer === undefined ? c : { ...c, cer });
      }
      if (skipped.length) notes.push(`page variants left out, no page fits: ${skipped.join('; ')}`);
    } catch (err) {
      page = undefined;
      pages = undefined;
      notes.push(`no snapshot page for ${profile.family}: ${(err as Error).message}`);
    }
  }
  const setup: CompactionSetup = {
    resolved,
    profile,
    budget,
    wire,
    request,
    notes,
    calibrator: options.calibrator ?? new Calibrator(),
  };
  if (page) setup.page = page;
  if (pages) setup.pages = pages;
  if (legibility && page) setup.legibility = legibility;
  return setup;
}

/** How the snapshot rung's page variants were admitted (see `pageLegibility`). */
export interface PageLegibility {
  /** The model's reader family (profile `readerFamily`), if it names one. */
  readerFamily: string | undefined;
  maxCer: number;
  /** Candidate variants, most legible first, with the measurement that admits them (undefined: unmeasured, forced). */
  expected: Map<string, SnapshotLegibility | undefined>;
  /** The variant was named by the caller (`variant`, `cell`, `scale`), not chosen by legibility. */
  forced: boolean;
  fallback?: 'family' | 'any-family';
  /** In words, when the floor could not be met or the family has no measurement. */
  note?: string;
}

/**
 * The variants a snapshot may use for `profile`: the one the caller forces, or those whose measured
 * CER for the profile's reader family is within `options.snapshot.maxCer` (legibility.ts, with its two
 * fallbacks), measured in the built-in table with the caller's `legibility` table over it.
 */
export function pageLegibility(profile: Profile, options: CompactionOptions): PageLegibility {
  const maxCer = options.snapshot?.maxCer ?? DEFAULT_MAX_CER;
  const table = legibilityTable(options.legibility);
  const family = profile.readerFamily;
  const forced = options.variant !== undefined || options.cell !== undefined || options.scale !== undefined;
  if (forced) {
    const v: Variant = variantOf(
      options.variant !== undefined
        ? { variant: options.variant }
        : { cell: options.cell, scale: options.scale },
    );
    const id = variantId(v);
    const m = family === undefined ? undefined : measuredCer(table, id, family);
    const expected = m
      ? { cer: m.cer, family: family!, source: m.source, readerFamily: family, maxCer, forced: true }
      : undefined;
    return { readerFamily: family, maxCer, expected: new Map([[id, expected]]), forced: true };
  }
  const sel = readableVariants(table, family, maxCer);
  const expected = new Map<string, SnapshotLegibility | undefined>();
  for (const r of sel.variants) {
    expected.set(r.variant, {
      cer: r.measurement.cer,
      family: r.family,
      source: r.measurement.source,
      readerFamily: family,
      maxCer,
      ...(sel.fallback ? { fallback: sel.fallback } : {}),
      ...(sel.note ? { note: sel.note } : {}),
    });
  }
  const out: PageLegibility = { readerFamily: family, maxCer, expected, forced: false };
  if (sel.fallback) out.fallback = sel.fallback;
  if (sel.note) out.note = sel.note;
  return out;
}

/** The built-in legibility table with `own` (a parsed file or a table) laid over it. */
export function legibilityTable(own: unknown): LegibilityTable {
  if (own === undefined) return builtInLegibility();
  return mergeLegibility(builtInLegibility(), validateLegibility(own, 'options.legibility'));
}

/** What the report says about the legibility of a page of `variant` (see `SnapshotFigures.legibility`). */
export function expectedLegibility(setup: CompactionSetup, variant: string): SnapshotLegibility {
  const l = setup.legibility;
  const known = l?.expected.get(variant);
  if (known) return known;
  return {
    readerFamily: l?.readerFamily,
    maxCer: l?.maxCer ?? DEFAULT_MAX_CER,
    ...(l?.forced ? { forced: true } : {}),
  };
}

/**
 * Narrowest snapshot page, in columns. Narrower pages waste less of a short line but read like a
 * newspaper column and multiply the page count; 80 is a terminal's width.
 */
export const MIN_COLS = 80;

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * Full-height pages of every width on the provider's billing grid that it takes without resizing (and
 * within its per-image bytes), plus `best`. Providers without an area grid get `best` only.
 */
export function pageCandidates(
  profile: Profile,
  best: PageSpec,
  detail: string | undefined,
  imagesInRequest: number,
): PageCandidate[] {
  const cell = variantCell(pageVariant(best));
  const geometry = (p: PageSpec): PageCandidate => ({
    ...p,
    cols: Math.floor(p.width / cell.width),
    rowsPerPage: Math.floor(p.height / cell.height),
  });
  const r = profile.image;
  if (r.kind !== 'anthropic-patch' && r.kind !== 'openai-patch') {
    // Tile- and flat-priced pages cost the same turned on their side. The tall one has fewer columns
    // (2048×512 → 512×2048: 341 → 85 columns of 6 px), which short lines fill far better and which is
    // the width the legibility rounds measured; choosePage takes whichever holds the text cheaper.
    const tall = { ...best, width: best.height, height: best.width };
    const fits =
      best.width > best.height &&
      tall.width / cell.width >= MIN_COLS &&
      Math.floor(tall.height / cell.height) >= 2 &&
      !wouldResize(profile, tall.width, tall.height, { ...(detail ? { detail } : {}), imagesInRequest }) &&
      imageTokens(profile, tall.width, tall.height, detail ? { detail } : {}) === best.tokens;
    return fits ? [geometry(best), geometry(tall)] : [geometry(best)];
  }
  const grid = r.patch;
  const level = r.kind === 'openai-patch' && detail ? r.details[detail] : undefined;
  const cap =
    r.kind === 'anthropic-patch' ? r.maxLongEdge : (level?.maxSide ?? Math.max(best.width, best.height));
  const perImage = Math.min(
    profile.images.maxBytesPerImage,
    Math.floor(profile.images.maxBytesPerRequest / imagesInRequest),
  );
  const opts = detail && detailLevels(profile).includes(detail) ? { detail } : {};
  const ok = (w: number, h: number): boolean =>
    !wouldResize(profile, w, h, { ...opts, imagesInRequest }) &&
    (level?.shapeBudget === undefined || Math.ceil(w / grid) * Math.ceil(h / grid) <= level.shapeBudget) &&
    pageBytesMax(profile, w, h) <= perImage;
  const step = (grid * cell.width) / gcd(grid, cell.width);
  const out: PageCandidate[] = [geometry(best)];
  for (let w = step; w <= cap; w += step) {
    if (w / cell.width < MIN_COLS || w === best.width) continue;
    // The tallest page of this width, on whole cell rows (cost rises with height: binary search).
    let lo = 0;
    let hi = Math.floor(cap / cell.height);
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (ok(w, mid * cell.height)) lo = mid;
      else hi = mid - 1;
    }
    if (lo < 2) continue;
    const h = lo * cell.height;
    out.push(geometry({ ...best, width: w, height: h, tokens: imageTokens(profile, w, h, opts) }));
  }
  return out;
}

/**
 * A body typed for one provider needs that provider named: without `wire` the format follows the
 * model's profile, so the body is any provider's.
 */
export type NamedWire<P extends WireProvider> = WireProvider extends P ? unknown : { wire: P };

/** What `prepareRequest` hands back: the body to send and what compaction did. */
export interface PreparedRequest<P extends WireProvider = WireProvider> extends LadderResult {
  /** The exact request body (views' `wireView`), typed for the `wire` option when one is named. */
  body: WireBodies[P];
  repairs: Repair[];
  /** Estimate of the body as sent (calibrated). */
  estimate: number;
  decision: Decision;
  setup: CompactionSetup;
}

/**
 * Whether `prepared` was built for `wire`; narrows its body to that provider's type. For harnesses
 * that pick the wire at run time (`sendWithCompaction` without a literal `wire`).
 */
export function isPreparedFor<P extends WireProvider>(
  prepared: PreparedRequest,
  wire: P,
): prepared is PreparedRequest<P> {
  return prepared.setup.wire === wire;
}

function ladderOptions(setup: CompactionSetup, options: CompactionOptions, force: boolean): LadderOptions {
  const est = {
    model: options.model,
    calibrator: setup.calibrator,
    ...(setup.request.imageDetail ? { detail: setup.request.imageDetail } : {}),
  };
  const measureOpts = {
    calibrator: setup.calibrator,
    imageTokens: (w: number, h: number, o?: { detail?: string }) => imageTokensFor(setup.profile, w, h, o),
  };
  const overhead = estimateTokens(setup.wire, [], setup.request, measureOpts).total;
  const o: LadderOptions = {
    model: options.model,
    profile: setup.profile,
    budget: setup.budget,
    estimate: itemEstimator(setup.profile, est),
    estimateText: textEstimator(est),
    overhead,
    measure: (items) => estimateTokens(setup.wire, items, setup.request, measureOpts).total - overhead,
    force,
    renderer: options.pool ? pooledRenderer(options.pool) : RENDERER,
    notes: setup.notes,
    profileNote: `${setup.resolved.route}${setup.resolved.guessed ? ', guessed' : ''}: ${setup.profile.family}`,
  };
  if (setup.page) {
    o.page = setup.page;
    if (setup.pages) o.pages = setup.pages;
    o.legibility = (variant) => expectedLegibility(setup, variant);
    const detail = setup.request.imageDetail;
    o.tokensFor = (w, h) => imageTokensFor(setup.profile, w, h, detail ? { detail } : undefined);
  }
  if (options.ladder) o.ladder = options.ladder;
  if (options.rungs) o.rungs = options.rungs;
  if (options.elide) o.elide = options.elide;
  if (options.shed) o.shed = options.shed;
  if (options.summarizer) o.summarizer = options.summarizer;
  if (options.cache) o.cache = options.cache;
  return o;
}

/** Image tokens under `profile`; a detail level only goes to rules that have levels. */
function imageTokensFor(profile: Profile, w: number, h: number, o?: { detail?: string }): number {
  const useDetail = o?.detail !== undefined && detailLevels(profile).includes(o.detail);
  return imageTokens(profile, w, h, useDetail ? { detail: o!.detail! } : {});
}

/**
 * Proactive path: the request for `path` (the record's path, compaction items included), compacted if
 * the policy says so. `force` compacts whatever the estimate (`/compact`). Never touches `path`; the
 * caller appends `records` to the history (in one commit) if it sends the request.
 */
export async function prepareRequest<P extends WireProvider = WireProvider>(
  path: readonly Item[],
  options: CompactionOptions<P> & NamedWire<P>,
  force = false,
  setup = setupCompaction(options),
): Promise<PreparedRequest<P>> {
  const first = await climb(path, { ...ladderOptions(setup, options, false), rungs: [] });
  const estimate = first.report.tokensAfter;
  const decision: Decision = force
    ? { compact: true, reason: 'compaction requested' }
    : shouldCompact(estimate, setup.budget, cacheStatus(options.cache, setup.profile));
  let result = first;
  if (decision.compact) {
    const early = !force && estimate <= setup.budget.trigger;
    const o = ladderOptions(setup, options, force || early);
    o.current = { items: first.items, tokens: first.report.tokensBefore };
    if (early) {
      // Early compaction on a cold cache: aim well under the trigger, and only with rungs that cost
      // no model call, or it is no bargain.
      o.budget = { ...o.budget, target: Math.floor(setup.budget.trigger * EARLY_TARGET) };
      o.force = false;
      o.ladder = (o.ladder ?? DEFAULT_LADDER).filter((r) => !r.callsModel);
    }
    result = await climb(path, o);
  }
  if (decision.compact) result.report.reasons.unshift(decision.reason);
  const { body, repairs } = wireView(setup.wire, result.items, setup.request);
  // setup.wire is options.wire when one was named (P), else P is the whole union: the body fits P.
  const typed = body as WireBodies[P];
  return { ...result, body: typed, repairs, estimate: result.report.tokensAfter, decision, setup };
}

/** The outcome of a call made through `sendWithCompaction`. */
export interface SendResult<T, P extends WireProvider = WireProvider> {
  response: T;
  /** The request that succeeded. */
  prepared: PreparedRequest<P>;
  /** The overflow that forced a retry, if one did. */
  overflow?: OverflowInfo;
  /** Compaction records to append: those of the request that succeeded. */
  records: CompactionRecord[];
}

/** How far low an estimate is assumed to have been, at least, when the overflow message has no count. */
export const UNCOUNTED_OVERFLOW_FACTOR = 1.25;

/** Thrown when the provider rejects the rebuilt request too: both estimates, both errors. */
export class CompactionOverflowError extends Error {
  /** The first overflow (the one that triggered the rebuild). */
  readonly first: OverflowInfo;
  /** The second overflow, as parsed. */
  readonly second: OverflowInfo;
  constructor(message: string, first: OverflowInfo, second: OverflowInfo, cause: unknown) {
    super(message, { cause });
    this.name = 'CompactionOverflowError';
    this.first = first;
    this.second = second;
  }
}

/**
 * What the provider counted for the request we estimated at `estimate`, as best we know: its own
 * count when the message has one (Anthropic, OpenAI Chat, Gemini); otherwise (OpenAI Responses says
 * only "exceeds the context window") a lower bound: more than the input the window leaves after the
 * reserved output, plus the margin we keep for estimate error, and at least 25% over our estimate.
 */
export function overflowCount(overflow: OverflowInfo, estimate: number, budget: Budget): number {
  if (overflow.measuredTokens !== undefined) return overflow.measuredTokens;
  const window = Math.min(budget.window, overflow.limit ?? Infinity);
  return Math.max(Math.ceil(estimate * UNCOUNTED_OVERFLOW_FACTOR), window - budget.maxOutput + budget.margin);
}

/**
 * The setup for the rebuild after an overflow. The caller's calibrator learns the observation (its
 * moving average follows drift), but the rebuild itself uses at least this request's own ratio: the
 * average lags behind a jump, and a rebuild from a lagging ratio overflows again. When the provider
 * names a limit below the budget's window, the rebuild aims under that limit instead.
 */
function retrySetup(
  setup: CompactionSetup,
  model: string,
  raw: number,
  counted: number,
  overflow: OverflowInfo,
): CompactionSetup {
  setup.calibrator.observe(model, raw, counted);
  const ratio = Math.max(setup.calibrator.ratio(model), counted / raw);
  const state = setup.calibrator.toJSON();
  state.models[model] = { ratio, samples: setup.calibrator.samples(model) };
  const budget = { ...setup.budget };
  if (overflow.limit !== undefined && overflow.limit < budget.window) {
    const limit = overflow.limit - budget.maxOutput - budget.margin;
    if (limit > 0) budget.target = Math.min(budget.target, limit);
  }
  return { ...setup, budget, calibrator: Calibrator.fromJSON(state) };
}

/**
 * Sends the request for `path` through `send`, compacting proactively, and once more after an overflow
 * error: the measured count (or, without one, the lower bound of `overflowCount`) recalibrates the
 * estimate, the ladder reruns forced, and the call is retried once. A second overflow is thrown as a
 * `CompactionOverflowError` (the provider's error as its `cause`); any other error as it came.
 */
export async function sendWithCompaction<T, P extends WireProvider = WireProvider>(
  path: readonly Item[],
  send: (prepared: PreparedRequest<NoInfer<P>>) => Promise<T>,
  options: CompactionOptions<P> & NamedWire<P>,
): Promise<SendResult<T, P>> {
  const setup = setupCompaction(options);
  const prepared = await prepareRequest<P>(path, options, false, setup);
  let overflow: OverflowInfo | undefined;
  try {
    return { response: await send(prepared), prepared, records: prepared.records };
  } catch (err) {
    overflow = parseOverflowError(err, setup.profile);
    if (!overflow || !(prepared.estimate > 0)) throw err;
  }
  // The estimate is calibrated; the calibrator learns ratios of raw estimates.
  const raw = prepared.estimate / setup.calibrator.ratio(options.model);
  const counted = overflowCount(overflow, prepared.estimate, setup.budget);
  const again = retrySetup(setup, options.model, raw, counted, overflow);
  const retry = await prepareRequest<P>(path, options, true, again);
  const ratio = again.calibrator.ratio(options.model).toFixed(3);
  retry.report.reasons.unshift(
    overflow.measuredTokens !== undefined
      ? `provider overflow: measured ${counted} tokens against our ${prepared.estimate}; recalibrated (×${ratio}) and rebuilt`
      : `provider overflow without a count: assumed at least ${counted} tokens against our ${prepared.estimate}; recalibrated (×${ratio}) and rebuilt`,
  );
  try {
    return { response: await send(retry), prepared: retry, overflow, records: retry.records };
  } catch (err) {
    const second = parseOverflowError(err, setup.profile);
    if (!second) throw err;
    const count = (o: OverflowInfo) => (o.measuredTokens !== undefined ? `${o.measuredTokens}` : 'uncounted');
    throw new CompactionOverflowError(
      `request still too long after compaction: the provider counted ${count(overflow)} tokens ` +
        `(our estimate ${prepared.estimate}), then ${count(second)} after the rebuild (our estimate ` +
        `${retry.estimate}, rungs ${retry.records.map((r) => r.rung).join(', ') || 'none'}); ` +
        `provider said: ${second.message}`,
      overflow,
      second,
      err,
    );
  }
}
