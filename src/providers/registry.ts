/**
 * The profile registry: the built-in JSON tables, plus whatever users add from a file or from code.
 *
 * The tables are imported as JSON modules (`with { type: 'json' }`): tsc (NodeNext) type-checks and
 * copies them into dist, Node ≥ 20.10 loads them natively, and edge bundlers (esbuild, Vite/rolldown,
 * wrangler, webpack 5) inline them, so the data stays data and nothing reads a file at run time. The
 * JSON is typed only as `unknown` here on purpose: every entry goes through the validator.
 */
import anthropic from './profiles/anthropic.json' with { type: 'json' };
import gemini from './profiles/gemini.json' with { type: 'json' };
import openai from './profiles/openai.json' with { type: 'json' };
import routes from './profiles/routes.json' with { type: 'json' };
import type { Profile, Reference, Route, RouteRule } from './types.js';
import {
  ProfileDataError,
  isObject,
  validateProfile,
  validateReferences,
  validateRouteRule,
} from './validate.js';

type Obj = Record<string, unknown>;

/** Profiles and route rules read from one profile file, validated. */
export interface LoadedProfiles {
  profiles: Profile[];
  routes: RouteRule[];
  references: Map<string, Reference>;
  /** Merged entries by family, abstract templates included, for later files to `extend`. */
  entries: Map<string, Obj>;
}

/** Fields that accumulate along `extends` instead of being replaced. */
const ACCUMULATED = new Set(['notes', 'sources', 'alternatives']);

/** Child over parent: objects merge, `null` deletes an inherited object, arrays replace (except ACCUMULATED at the top). */
function merge(parent: Obj, child: Obj, top: boolean): Obj {
  const out: Obj = { ...parent };
  for (const [k, v] of Object.entries(child)) {
    // null removes an inherited object (a detail level); on a scalar it is the value (no budget).
    if (v === null && isObject(parent[k])) delete out[k];
    else if (top && ACCUMULATED.has(k) && Array.isArray(v) && Array.isArray(parent[k])) {
      out[k] = [...(parent[k] as unknown[]), ...v];
    } else if (isObject(v) && isObject(parent[k])) {
      // A different image rule kind replaces the rule instead of mixing two rules' fields.
      const replace = k === 'image' && top && v.kind !== undefined && v.kind !== (parent[k] as Obj).kind;
      out[k] = replace ? v : merge(parent[k] as Obj, v, false);
    } else out[k] = v;
  }
  return out;
}

/**
 * Reads a parsed profile file: `{ version: 1, references?, profiles?: [...], routes?: [...] }`.
 * A profile entry may `extends` a family defined earlier in the same file or already registered, and
 * may be `abstract` (a template that no id matches). Throws {@link ProfileDataError} naming the field.
 */
export function loadProfileFile(
  json: unknown,
  origin = 'profile file',
  base: Registry = registry,
): LoadedProfiles {
  const read = readProfileFile(json, origin, base);
  return {
    profiles: read.pending.map(([, validate]) => validate()),
    routes: read.routes,
    references: read.references,
    entries: read.entries,
  };
}

/**
 * A profile file with every profile entry merged but not yet validated: `pending` holds one validator
 * per non-abstract family, so built-in tables (checked by the test suite) pay for validation only for
 * the profiles a process uses. Structure, references and route rules are checked here.
 */
function readProfileFile(
  json: unknown,
  origin: string,
  base: Registry,
): Omit<LoadedProfiles, 'profiles'> & { pending: [string, () => Profile][] } {
  if (!isObject(json))
    throw new ProfileDataError(
      origin,
      `expected an object, found ${Array.isArray(json) ? 'an array' : String(json)}`,
    );
  for (const k of Object.keys(json)) {
    if (!['version', 'references', 'profiles', 'routes'].includes(k)) {
      throw new ProfileDataError(
        `${origin}.${k}`,
        'unknown field (allowed: version, references, profiles, routes)',
      );
    }
  }
  if (json.version !== undefined && json.version !== 1) {
    throw new ProfileDataError(`${origin}.version`, `expected 1, found ${String(json.version)}`);
  }
  const references = new Map([
    ...base.references,
    ...validateReferences(json.references, `${origin}.references`),
  ]);
  const entries = new Map<string, Obj>();
  const pending: [string, () => Profile][] = [];
  const rawProfiles = json.profiles ?? [];
  if (!Array.isArray(rawProfiles))
    throw new ProfileDataError(`${origin}.profiles`, 'expected an array of profiles');
  rawProfiles.forEach((raw, i) => {
    const at = `${origin}.profiles[${i}]`;
    if (!isObject(raw)) throw new ProfileDataError(at, 'expected an object');
    const family = typeof raw.family === 'string' ? raw.family : undefined;
    const path = family ? `${at} '${family}'` : at;
    const { extends: parentName, abstract, ...own } = raw;
    let merged: Obj = own;
    if (parentName !== undefined) {
      if (typeof parentName !== 'string')
        throw new ProfileDataError(`${path}.extends`, 'expected a family name');
      const parent = entries.get(parentName) ?? base.entries.get(parentName);
      if (!parent) {
        throw new ProfileDataError(
          `${path}.extends`,
          `no family '${parentName}' defined before this entry or registered`,
        );
      }
      // `generic` and `family` belong to the entry itself, never inherited.
      const { generic: _g, family: _f, ...inherited } = parent;
      merged = merge(inherited, own, true);
    }
    if (abstract !== undefined && typeof abstract !== 'boolean') {
      throw new ProfileDataError(`${path}.abstract`, `expected true or false, found ${String(abstract)}`);
    }
    if (family === undefined)
      throw new ProfileDataError(`${path}.family`, 'expected a non-empty string, found nothing');
    entries.set(family, merged);
    if (!abstract) pending.push([family, () => validateProfile(merged, path, references)]);
  });
  const rawRoutes = json.routes ?? [];
  if (!Array.isArray(rawRoutes))
    throw new ProfileDataError(`${origin}.routes`, 'expected an array of route rules');
  const routeRules = rawRoutes.map((r, i) => validateRouteRule(r, `${origin}.routes[${i}]`, references));
  return { pending, routes: routeRules, references, entries };
}

/** A registered profile: validated, or (built-in tables) validated on first use. */
interface Slot {
  profile?: Profile;
  validate?: () => Profile;
}

function settle(slot: Slot): Profile {
  if (!slot.profile) {
    slot.profile = slot.validate!();
    delete slot.validate;
  }
  return slot.profile;
}

interface Registry {
  profiles: Map<string, Slot>;
  routes: Map<Route, RouteRule>;
  references: Map<string, Reference>;
  entries: Map<string, Obj>;
}

function emptyRegistry(): Registry {
  return { profiles: new Map(), routes: new Map(), references: new Map(), entries: new Map() };
}

function add(target: Registry, loaded: LoadedProfiles): void {
  for (const [k, v] of loaded.references) target.references.set(k, v);
  for (const [k, v] of loaded.entries) target.entries.set(k, v);
  for (const p of loaded.profiles) target.profiles.set(p.family, { profile: p });
  for (const r of loaded.routes) target.routes.set(r.route, r);
}

const BUILT_IN: readonly [string, unknown][] = [
  ['profiles/anthropic.json', anthropic],
  ['profiles/openai.json', openai],
  ['profiles/gemini.json', gemini],
  ['profiles/routes.json', routes],
];

function builtIn(): Registry {
  const r = emptyRegistry();
  // Each file is read against a fresh view of what came before, so files cannot see each other's
  // references by accident; only `entries` (for extends) and references are shared. Profiles are
  // validated on first use: the shipped tables are validated in full by the test suite
  // (`validateBuiltInProfiles`), and a cold start (serverless) should not pay for 60 profiles to use one.
  for (const [name, json] of BUILT_IN) {
    const read = readProfileFile(json, name, r);
    for (const [k, v] of read.references) r.references.set(k, v);
    for (const [k, v] of read.entries) r.entries.set(k, v);
    for (const [family, validate] of read.pending) r.profiles.set(family, { validate });
    for (const rule of read.routes) r.routes.set(rule.route, rule);
  }
  return r;
}

/**
 * Validates every profile of the built-in tables now (they are otherwise validated on first use) and
 * returns them; throws {@link ProfileDataError} for the first bad entry. The test suite calls it.
 */
export function validateBuiltInProfiles(): Profile[] {
  const r = emptyRegistry();
  const out: Profile[] = [];
  for (const [name, json] of BUILT_IN) {
    const loaded = loadProfileFile(json, name, r);
    add(r, loaded);
    out.push(...loaded.profiles);
  }
  return out;
}

let registry: Registry = builtIn();
let version = 0;

/** Bumped by every registration and reset: caches derived from registered data check it. */
export function registryVersion(): number {
  return version;
}

/**
 * Adds or replaces profiles and route rules, from a parsed profile file (see {@link loadProfileFile})
 * or from its result. A family already registered is replaced; later registrations win.
 */
export function registerProfiles(input: unknown, origin = 'registerProfiles'): LoadedProfiles {
  const loaded = isLoaded(input) ? input : loadProfileFile(input, origin);
  add(registry, loaded);
  version++;
  return loaded;
}

function isLoaded(v: unknown): v is LoadedProfiles {
  return isObject(v) && v.entries instanceof Map && Array.isArray(v.profiles);
}

/** Drops everything registered from code or files and goes back to the built-in tables. */
export function resetProfiles(): void {
  registry = builtIn();
  version++;
}

/** Every registered (non-abstract) profile, in registration order. */
export function listProfiles(): Profile[] {
  return [...registry.profiles.values()].map(settle);
}

/** The profile registered for exactly this normalised family, if any. */
export function getProfile(family: string): Profile | undefined {
  const slot = registry.profiles.get(family);
  return slot && settle(slot);
}

export function getRouteRule(route: Route): RouteRule | undefined {
  return registry.routes.get(route);
}

/** The title, url and date a profile's `sources[].ref` names. */
export function getReference(ref: string): Reference | undefined {
  return registry.references.get(ref);
}

/**
 * A registry view for one call: the registered profiles plus a file's worth given as an option.
 * `families` lists the names; `get` validates a built-in profile on first use.
 */
export function profilesWith(extra: unknown): {
  families: Iterable<string>;
  get(family: string): Profile | undefined;
  all(): Profile[];
} {
  if (extra === undefined) return { families: registry.profiles.keys(), get: getProfile, all: listProfiles };
  const loaded = isLoaded(extra) ? extra : loadProfileFile(extra, 'options.profiles');
  const own = new Map(loaded.profiles.map((p) => [p.family, p]));
  const families = new Set([...registry.profiles.keys(), ...own.keys()]);
  const get = (family: string): Profile | undefined => own.get(family) ?? getProfile(family);
  return { families, get, all: () => [...families].map((f) => get(f)!) };
}
