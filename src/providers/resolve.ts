/**
 * Route-qualified model ids → profiles. A gateway's id shape names the route (and so whose limits
 * apply); stripping the route's decorations leaves a normalised id whose longest matching family is
 * the profile.
 */
import { getRouteRule, listProfiles, profilesWith, registryVersion } from './registry.js';
import type { Profile, ResolvedProfile, Route } from './types.js';

export interface ResolveOptions {
  /** Force the route where the id's shape cannot tell (Vertex ids without `@date`, Vercel vs OpenRouter). */
  route?: Route;
  /** Extra profiles for this call only: a parsed profile file (see `loadProfileFile`). */
  profiles?: unknown;
}

export interface NormalizedId {
  normalizedId: string;
  route: Route;
  /** Why the route was chosen, when the shape was ambiguous. */
  note?: string;
}

const GEO = /^(us|eu|apac|au|jp|global|us-gov|ca|sa|me|af)\./;
const VENDOR_DOT = /^(anthropic|openai|google|meta|amazon|mistral|cohere|deepseek)\./;
const VENDOR_SLASH = /^(anthropic|openai|google|gemini|x-ai|meta-llama|mistralai)\//;

/**
 * Strips an id's route decorations: Bedrock ARNs, geo and vendor prefixes, `-v1:0` suffixes, Vertex
 * `@date`, `:variant`, dated snapshots (`-20251001`, `-2024-08-06`); version dots become dashes.
 */
export function normalizeModelId(id: string): NormalizedId {
  if (typeof id !== 'string') throw new TypeError(`model id must be a string, found ${typeof id}`);
  let s = id.trim().toLowerCase();
  if (s.length === 0)
    throw new RangeError('model id is empty: expected e.g. claude-opus-4-7, gpt-5.5 or gemini-2.5-pro');
  let route: Route | undefined;
  let note: string | undefined;

  // Explicit gateway prefixes some harnesses write (`openrouter/anthropic/claude-…`).
  const gw = /^(openrouter|vercel)\//.exec(s);
  if (gw) {
    route = gw[1] as Route;
    s = s.slice(gw[0].length);
  }
  // Bedrock ARNs: arn:aws:bedrock:<region>:<account>:(inference-profile|foundation-model|…)/<id>
  if (s.startsWith('arn:')) {
    const slash = s.lastIndexOf('/');
    if (!s.startsWith('arn:aws') || !s.includes(':bedrock:') || slash < 0) {
      throw new RangeError(
        `unrecognised ARN '${id}': expected arn:aws:bedrock:<region>:<account>:…/<model id>`,
      );
    }
    s = s.slice(slash + 1);
    route = 'bedrock';
  }
  // Vertex resource names: projects/…/publishers/<vendor>/models/<id>
  const pub = /(?:^|\/)publishers\/[^/]+\/models\/([^/]+)$/.exec(s);
  if (pub) {
    s = pub[1]!;
    route ??= 'vertex';
  }
  if (s.startsWith('models/')) {
    s = s.slice('models/'.length);
    route ??= 'gemini';
  }
  if (GEO.test(s) && s.slice(s.indexOf('.') + 1).match(VENDOR_DOT)) {
    s = s.slice(s.indexOf('.') + 1);
    route ??= 'bedrock';
  }
  if (VENDOR_DOT.test(s)) {
    s = s.replace(VENDOR_DOT, '');
    route ??= 'bedrock';
  }
  // Bedrock version suffix: -v1:0, -v2, -v1:0:200k
  if (/-v\d+(:\d+)*(:\d+k)?$/.test(s)) {
    s = s.replace(/-v\d+(:\d+)*(:\d+k)?$/, '');
    route ??= 'bedrock';
  }
  const vendor = VENDOR_SLASH.exec(s);
  if (vendor) {
    s = s.slice(vendor[0].length);
    if (!route) {
      route = 'openrouter';
      note =
        "'vendor/model' ids are shared by OpenRouter and the Vercel AI Gateway: assumed OpenRouter (pass { route: 'vercel' } to choose)";
    }
  }
  // Vertex: claude-sonnet-4-5@20250929 (newer ids have no @date and look like direct ones).
  const at = /@(\d{8}|latest|default)$/.exec(s);
  if (at) {
    s = s.slice(0, at.index);
    route ??= 'vertex';
  }
  // OpenRouter variants: :free, :beta, :thinking, :extended …
  const variant = /:([a-z][a-z0-9-]*)$/.exec(s);
  if (variant) {
    s = s.slice(0, variant.index);
    if (route === undefined || (route === 'openrouter' && note)) {
      route = 'openrouter';
      note = undefined;
    }
  }
  // Dated snapshots: -20251001 (Anthropic), -2024-08-06 (OpenAI), -0613, -preview-06-05 …
  s = s.replace(/-\d{4}-\d{2}-\d{2}$/, '').replace(/-\d{8}$/, '');
  // Version dots become dashes: claude-sonnet-4.5 → claude-sonnet-4-5, gpt-5.5 → gpt-5-5.
  s = s.replace(/(\d)\.(?=\d)/g, '$1-');

  if (!route) {
    if (s.startsWith('claude')) route = 'anthropic';
    else if (s.startsWith('gemini')) route = 'gemini';
    else if (/^(gpt|o\d|chatgpt|codex)/.test(s)) route = 'openai';
    else route = 'unknown';
  }
  return note === undefined ? { normalizedId: s, route } : { normalizedId: s, route, note };
}

/** The longest registered family that `normalizedId` starts with, at a `-` boundary. */
export function matchFamily(
  normalizedId: string,
  profiles: Iterable<Profile> = listProfiles(),
): Profile | undefined {
  let best: Profile | undefined;
  for (const p of profiles) {
    const f = p.family;
    const hit = normalizedId === f || (normalizedId.startsWith(f) && normalizedId[f.length] === '-');
    if (hit && (!best || f.length > best.family.length)) best = p;
  }
  return best;
}

/** The most conservative profile over everything registered: for ids nothing matches. */
export function conservativeProfile(profiles: Iterable<Profile> = listProfiles()): Profile {
  const all = [...profiles];
  const min = (f: (p: Profile) => number): number => Math.min(...all.map(f));
  const max = (f: (p: Profile) => number): number => Math.max(...all.map(f));
  const base = all.find((p) => p.family === 'gpt') ?? all[0];
  /* c8 ignore next */
  if (!base) throw new Error('no profiles registered');
  // Nobody knows who reads for an unknown model: no reader family (the page choice says so).
  const { readerFamily: _reader, ...rest } = base;
  return {
    ...rest,
    family: 'unknown',
    name: 'Unknown model (most conservative figures of all profiles)',
    contextWindow: min((p) => p.contextWindow),
    maxOutput: min((p) => p.maxOutput),
    // A model nobody knows to have vision gets summaries, never pages it may not see.
    vision: false,
    images: {
      maxPerRequest: min((p) => p.images.maxPerRequest),
      maxBytesPerImage: min((p) => p.images.maxBytesPerImage),
      maxBytesPerRequest: min((p) => p.images.maxBytesPerRequest),
      base64Counted: true,
    },
    cache: {
      writeMultiplier: max((p) => p.cache.writeMultiplier),
      readMultiplier: max((p) => p.cache.readMultiplier),
    },
    overflowPatterns: [...new Set(all.flatMap((p) => p.overflowPatterns))],
    generic: true,
    notes: ['Element-wise most conservative figures of every registered profile; vision assumed absent.'],
    sources: [],
    alternatives: [],
  };
}

/** The longest of `families` that `normalizedId` starts with, at a `-` boundary (names only: no validation). */
function matchFamilyName(normalizedId: string, families: Iterable<string>): string | undefined {
  let best: string | undefined;
  for (const f of families) {
    const hit = normalizedId === f || (normalizedId.startsWith(f) && normalizedId[f.length] === '-');
    if (hit && (best === undefined || f.length > best.length)) best = f;
  }
  return best;
}

/*
 * Resolved profiles are shared objects: the same id (and registry state) gives the same `profile`
 * object, so caches keyed by profile identity (bestPageShape's, the token estimator's) hit. Profiles are
 * never mutated; any registration or reset starts the caches afresh.
 */
let cacheVersion = -1;
let routedCache = new WeakMap<Profile, Map<Route, Profile>>();
let conservativeCache: Profile | undefined;

function freshCaches(): void {
  const v = registryVersion();
  if (v === cacheVersion) return;
  cacheVersion = v;
  routedCache = new WeakMap();
  conservativeCache = undefined;
}

/** {@link applyRoute}, once per (profile object, route) for the current registry state. */
function routedProfile(profile: Profile, route: Route): Profile {
  freshCaches();
  let perRoute = routedCache.get(profile);
  let hit = perRoute?.get(route);
  if (!hit) {
    hit = applyRoute(profile, route);
    if (!perRoute) routedCache.set(profile, (perRoute = new Map()));
    perRoute.set(route, hit);
  }
  return hit;
}

/** Applies a route's own limits (and image rule override) over the upstream profile. */
function applyRoute(profile: Profile, route: Route): Profile {
  const rule = getRouteRule(route);
  if (!rule || (rule.providers && !rule.providers.includes(profile.provider))) return profile;
  const images = { ...profile.images };
  if (rule.maxBytesPerImage !== undefined)
    images.maxBytesPerImage = Math.min(images.maxBytesPerImage, rule.maxBytesPerImage);
  if (rule.maxBytesPerRequest !== undefined) {
    images.maxBytesPerRequest = Math.min(images.maxBytesPerRequest, rule.maxBytesPerRequest);
  }
  if (rule.base64Only) images.base64Counted = true;
  const image = rule.image?.[profile.provider] ?? profile.image;
  return {
    ...profile,
    images,
    image,
    notes: [...profile.notes, ...rule.notes],
    sources: [...profile.sources],
  };
}

/**
 * The profile for a model id as a route names it: `claude-opus-4-7`, `us.anthropic.claude-haiku-4-5-20251001-v1:0`,
 * an ARN, `claude-sonnet-4-5@20250929`, `anthropic/claude-sonnet-4.5:beta`, `openai/gpt-5.5`, `gemini-2.5-pro`.
 * Unknown ids get the most conservative profile with `guessed: true`; an empty id throws.
 */
export function resolveProfile(id: string, options: ResolveOptions = {}): ResolvedProfile {
  const n = normalizeModelId(id);
  const route = options.route ?? n.route;
  const profiles = profilesWith(options.profiles);
  const family = matchFamilyName(n.normalizedId, profiles.families);
  const match = family === undefined ? undefined : profiles.get(family);
  const notes: string[] = [];
  if (n.note && !options.route) notes.push(n.note);
  let profile: Profile;
  let guessed = false;
  if (!match) {
    if (options.profiles === undefined) {
      freshCaches();
      profile = conservativeCache ??= conservativeProfile(profiles.all());
    } else profile = conservativeProfile(profiles.all());
    guessed = true;
    notes.push(`unknown model '${id}': using the most conservative profile (no vision, smallest limits)`);
  } else {
    profile = match;
    if (match.generic) {
      guessed = true;
      notes.push(
        `'${id}' matched only the generic '${match.family}' profile: figures are conservative guesses`,
      );
    }
  }
  const result: ResolvedProfile = {
    profile: routedProfile(profile, route),
    id,
    normalizedId: n.normalizedId,
    route,
    guessed,
  };
  if (notes.length > 0) result.note = notes.join('; ');
  return result;
}
