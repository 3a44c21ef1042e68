/**
 * Validation of profile data (built-in JSON and user files alike). Every error names the file, the
 * entry and the field, with what was expected and what was found, so a typo in a user's override file
 * points at itself.
 */
import {
  PROVIDERS,
  ROUTES,
  type Alternative,
  type ImageRule,
  type Profile,
  type Reference,
  type RouteRule,
  type SourceRef,
} from './types.js';

/** Bad profile data: `path` is where (e.g. `profiles[3] 'gpt-5-2'.image.multiplier`). */
export class ProfileDataError extends Error {
  override name = 'ProfileDataError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

type Obj = Record<string, unknown>;

export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A found value as an error message names it (strings quoted, containers by kind). */
export function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  return String(v);
}

function fail(path: string, expected: string, found: unknown): never {
  throw new ProfileDataError(path, `expected ${expected}, found ${show(found)}`);
}

function obj(v: unknown, path: string): Obj {
  if (!isObject(v)) fail(path, 'an object', v);
  return v;
}

function onlyKeys(o: Obj, allowed: readonly string[], path: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) {
      throw new ProfileDataError(`${path}.${k}`, `unknown field (allowed: ${allowed.join(', ')})`);
    }
  }
}

function posInt(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) fail(path, 'a positive integer', v);
  return v;
}

function nonNegInt(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) fail(path, 'an integer ≥ 0', v);
  return v;
}

function posNum(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) fail(path, 'a positive number', v);
  return v;
}

function nonNegNum(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail(path, 'a number ≥ 0', v);
  return v;
}

function bool(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') fail(path, 'true or false', v);
  return v;
}

function str(v: unknown, path: string): string {
  if (typeof v !== 'string' || v.length === 0) fail(path, 'a non-empty string', v);
  return v;
}

function strArray(v: unknown, path: string): string[] {
  if (!Array.isArray(v)) fail(path, 'an array of strings', v);
  return v.map((s, i) => str(s, `${path}[${i}]`));
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], path: string): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    fail(path, `one of ${allowed.join(', ')}`, v);
  }
  return v as T;
}

function detailList(v: unknown, known: readonly string[], path: string): string[] {
  const list = strArray(v, path);
  if (list.length === 0) fail(path, 'at least one detail level', v);
  list.forEach((d, i) => oneOf(d, known, `${path}[${i}]`));
  return list;
}

export const FAMILY_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

function validateImageRule(v: unknown, path: string): ImageRule {
  const o = obj(v, path);
  const kind = oneOf(
    o.kind,
    ['anthropic-patch', 'openai-tile', 'openai-patch', 'gemini-tile', 'flat'],
    `${path}.kind`,
  );
  switch (kind) {
    case 'anthropic-patch':
      onlyKeys(o, ['kind', 'patch', 'maxLongEdge', 'maxTokens'], path);
      return {
        kind,
        patch: posInt(o.patch, `${path}.patch`),
        maxLongEdge: posInt(o.maxLongEdge, `${path}.maxLongEdge`),
        maxTokens: posInt(o.maxTokens, `${path}.maxTokens`),
      };
    case 'openai-tile': {
      onlyKeys(
        o,
        [
          'kind',
          'box',
          'shortSide',
          'tile',
          'baseTokens',
          'tileTokens',
          'details',
          'defaultDetail',
          'pageDetails',
        ],
        path,
      );
      const details = detailList(o.details, ['low', 'high', 'auto'], `${path}.details`);
      const rule = {
        kind,
        box: posInt(o.box, `${path}.box`),
        shortSide: posInt(o.shortSide, `${path}.shortSide`),
        tile: posInt(o.tile, `${path}.tile`),
        baseTokens: nonNegInt(o.baseTokens, `${path}.baseTokens`),
        tileTokens: posInt(o.tileTokens, `${path}.tileTokens`),
        details,
        defaultDetail: oneOf(o.defaultDetail, ['low', 'high'], `${path}.defaultDetail`),
        pageDetails: detailList(o.pageDetails, details, `${path}.pageDetails`),
      } as const;
      return { ...rule, details: [...rule.details], pageDetails: [...rule.pageDetails] };
    }
    case 'openai-patch': {
      onlyKeys(o, ['kind', 'patch', 'multiplier', 'details', 'defaultDetail', 'pageDetails'], path);
      const rawDetails = obj(o.details, `${path}.details`);
      const details: Record<
        string,
        { maxSide: number | null; patchBudget: number | null; shapeBudget?: number }
      > = {};
      for (const [name, d] of Object.entries(rawDetails)) {
        const dp = `${path}.details.${name}`;
        if (name === 'auto')
          throw new ProfileDataError(dp, "'auto' is not a level of its own: set defaultDetail");
        const dd = obj(d, dp);
        onlyKeys(dd, ['maxSide', 'patchBudget', 'shapeBudget'], dp);
        const maxSide = dd.maxSide === null ? null : posInt(dd.maxSide, `${dp}.maxSide`);
        const patchBudget = dd.patchBudget === null ? null : posInt(dd.patchBudget, `${dp}.patchBudget`);
        const entry: { maxSide: number | null; patchBudget: number | null; shapeBudget?: number } = {
          maxSide,
          patchBudget,
        };
        if (dd.shapeBudget !== undefined) {
          entry.shapeBudget = posInt(dd.shapeBudget, `${dp}.shapeBudget`);
          if (patchBudget !== null && entry.shapeBudget > patchBudget) {
            fail(`${dp}.shapeBudget`, `at most patchBudget (${patchBudget})`, entry.shapeBudget);
          }
        }
        details[name] = entry;
      }
      const names = Object.keys(details);
      if (names.length === 0) fail(`${path}.details`, 'at least one detail level', rawDetails);
      return {
        kind,
        patch: posInt(o.patch, `${path}.patch`),
        multiplier: posNum(o.multiplier, `${path}.multiplier`),
        details,
        defaultDetail: oneOf(o.defaultDetail, names, `${path}.defaultDetail`),
        pageDetails: detailList(o.pageDetails, names, `${path}.pageDetails`),
      };
    }
    case 'gemini-tile':
      onlyKeys(o, ['kind', 'smallMax', 'smallTokens', 'tile', 'tileTokens', 'pageMaxSide'], path);
      return {
        kind,
        smallMax: posInt(o.smallMax, `${path}.smallMax`),
        smallTokens: posInt(o.smallTokens, `${path}.smallTokens`),
        tile: posInt(o.tile, `${path}.tile`),
        tileTokens: posInt(o.tileTokens, `${path}.tileTokens`),
        pageMaxSide: posInt(o.pageMaxSide, `${path}.pageMaxSide`),
      };
    case 'flat': {
      onlyKeys(o, ['kind', 'details', 'defaultDetail', 'pageDetails', 'pageMaxSide', 'verified'], path);
      const raw = obj(o.details, `${path}.details`);
      const details: Record<string, number> = {};
      for (const [name, t] of Object.entries(raw)) details[name] = posInt(t, `${path}.details.${name}`);
      const names = Object.keys(details);
      if (names.length === 0) fail(`${path}.details`, 'at least one detail level', raw);
      return {
        kind,
        details,
        defaultDetail: oneOf(o.defaultDetail, names, `${path}.defaultDetail`),
        pageDetails: detailList(o.pageDetails, names, `${path}.pageDetails`),
        pageMaxSide: posInt(o.pageMaxSide, `${path}.pageMaxSide`),
        verified: bool(o.verified, `${path}.verified`),
      };
    }
  }
}

function validateSources(v: unknown, path: string, refs: ReadonlyMap<string, Reference>): SourceRef[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) fail(path, 'an array of { fields, ref, note? }', v);
  return v.map((s, i) => {
    const p = `${path}[${i}]`;
    const o = obj(s, p);
    onlyKeys(o, ['fields', 'ref', 'note'], p);
    const ref = str(o.ref, `${p}.ref`);
    if (!refs.has(ref)) fail(`${p}.ref`, `a key of references (${[...refs.keys()].join(', ')})`, ref);
    const out: SourceRef = { fields: strArray(o.fields, `${p}.fields`), ref };
    if (o.note !== undefined) out.note = str(o.note, `${p}.note`);
    return out;
  });
}

function validateAlternatives(v: unknown, path: string, refs: ReadonlyMap<string, Reference>): Alternative[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) fail(path, 'an array of { field, value, ref, note }', v);
  return v.map((a, i) => {
    const p = `${path}[${i}]`;
    const o = obj(a, p);
    onlyKeys(o, ['field', 'value', 'ref', 'note'], p);
    const ref = str(o.ref, `${p}.ref`);
    if (!refs.has(ref)) fail(`${p}.ref`, `a key of references (${[...refs.keys()].join(', ')})`, ref);
    return { field: str(o.field, `${p}.field`), value: o.value, ref, note: str(o.note, `${p}.note`) };
  });
}

export const PROFILE_KEYS = [
  'family',
  'provider',
  'name',
  'contextWindow',
  'maxOutput',
  'vision',
  'readerFamily',
  'images',
  'image',
  'cache',
  'overflowPatterns',
  'generic',
  'notes',
  'sources',
  'alternatives',
] as const;

/** Validates one fully merged profile entry (no `extends` left). */
export function validateProfile(v: unknown, path: string, refs: ReadonlyMap<string, Reference>): Profile {
  const o = obj(v, path);
  onlyKeys(o, PROFILE_KEYS, path);
  const family = str(o.family, `${path}.family`);
  if (!FAMILY_PATTERN.test(family)) {
    fail(`${path}.family`, 'a normalised id: lower case, digits and dashes (version dots as dashes)', family);
  }
  const contextWindow = posInt(o.contextWindow, `${path}.contextWindow`);
  const maxOutput = posInt(o.maxOutput, `${path}.maxOutput`);
  if (maxOutput > contextWindow)
    fail(`${path}.maxOutput`, `at most contextWindow (${contextWindow})`, maxOutput);

  const ip = `${path}.images`;
  const im = obj(o.images, ip);
  onlyKeys(
    im,
    ['maxPerRequest', 'maxBytesPerImage', 'maxBytesPerRequest', 'base64Counted', 'manyImages', 'formats'],
    ip,
  );
  const images: Profile['images'] = {
    maxPerRequest: posInt(im.maxPerRequest, `${ip}.maxPerRequest`),
    maxBytesPerImage: posInt(im.maxBytesPerImage, `${ip}.maxBytesPerImage`),
    maxBytesPerRequest: posInt(im.maxBytesPerRequest, `${ip}.maxBytesPerRequest`),
    base64Counted: bool(im.base64Counted, `${ip}.base64Counted`),
  };
  if (im.manyImages !== undefined) {
    const m = obj(im.manyImages, `${ip}.manyImages`);
    onlyKeys(m, ['above', 'maxSide'], `${ip}.manyImages`);
    images.manyImages = {
      above: nonNegInt(m.above, `${ip}.manyImages.above`),
      maxSide: posInt(m.maxSide, `${ip}.manyImages.maxSide`),
    };
  }
  if (im.formats !== undefined) images.formats = strArray(im.formats, `${ip}.formats`);

  const cp = `${path}.cache`;
  const c = obj(o.cache, cp);
  onlyKeys(c, ['writeMultiplier', 'readMultiplier', 'writeMultiplier1h', 'maxBreakpoints', 'minTokens'], cp);
  const cache: Profile['cache'] = {
    writeMultiplier: nonNegNum(c.writeMultiplier, `${cp}.writeMultiplier`),
    readMultiplier: nonNegNum(c.readMultiplier, `${cp}.readMultiplier`),
  };
  if (c.writeMultiplier1h !== undefined)
    cache.writeMultiplier1h = nonNegNum(c.writeMultiplier1h, `${cp}.writeMultiplier1h`);
  if (c.maxBreakpoints !== undefined) cache.maxBreakpoints = posInt(c.maxBreakpoints, `${cp}.maxBreakpoints`);
  if (c.minTokens !== undefined) cache.minTokens = posInt(c.minTokens, `${cp}.minTokens`);

  const overflowPatterns = strArray(o.overflowPatterns ?? [], `${path}.overflowPatterns`);
  overflowPatterns.forEach((p, i) => {
    try {
      new RegExp(p);
    } catch (err) {
      throw new ProfileDataError(
        `${path}.overflowPatterns[${i}]`,
        `not a valid regular expression: ${(err as Error).message}`,
      );
    }
  });

  const readerFamily = o.readerFamily === undefined ? undefined : str(o.readerFamily, `${path}.readerFamily`);
  if (readerFamily !== undefined && !FAMILY_PATTERN.test(readerFamily)) {
    fail(
      `${path}.readerFamily`,
      'a reader family: lower case, digits and dashes (claude, gpt, gemini)',
      readerFamily,
    );
  }

  return {
    family,
    provider: oneOf(o.provider, PROVIDERS, `${path}.provider`),
    name: o.name === undefined ? family : str(o.name, `${path}.name`),
    contextWindow,
    maxOutput,
    vision: bool(o.vision, `${path}.vision`),
    ...(readerFamily === undefined ? {} : { readerFamily }),
    images,
    image: validateImageRule(o.image, `${path}.image`),
    cache,
    overflowPatterns,
    generic: o.generic === undefined ? false : bool(o.generic, `${path}.generic`),
    notes: o.notes === undefined ? [] : strArray(o.notes, `${path}.notes`),
    sources: validateSources(o.sources, `${path}.sources`, refs),
    alternatives: validateAlternatives(o.alternatives, `${path}.alternatives`, refs),
  };
}

export function validateRouteRule(v: unknown, path: string, refs: ReadonlyMap<string, Reference>): RouteRule {
  const o = obj(v, path);
  onlyKeys(
    o,
    [
      'route',
      'providers',
      'maxBytesPerImage',
      'maxBytesPerRequest',
      'base64Only',
      'image',
      'notes',
      'sources',
    ],
    path,
  );
  const rule: RouteRule = {
    route: oneOf(o.route, ROUTES, `${path}.route`),
    notes: o.notes === undefined ? [] : strArray(o.notes, `${path}.notes`),
    sources: validateSources(o.sources, `${path}.sources`, refs),
  };
  if (o.providers !== undefined) {
    rule.providers = strArray(o.providers, `${path}.providers`).map((p, i) =>
      oneOf(p, PROVIDERS, `${path}.providers[${i}]`),
    );
  }
  if (o.maxBytesPerImage !== undefined)
    rule.maxBytesPerImage = posInt(o.maxBytesPerImage, `${path}.maxBytesPerImage`);
  if (o.maxBytesPerRequest !== undefined) {
    rule.maxBytesPerRequest = posInt(o.maxBytesPerRequest, `${path}.maxBytesPerRequest`);
  }
  if (o.base64Only !== undefined) rule.base64Only = bool(o.base64Only, `${path}.base64Only`);
  if (o.image !== undefined) {
    const im = obj(o.image, `${path}.image`);
    const image: NonNullable<RouteRule['image']> = {};
    for (const [provider, r] of Object.entries(im)) {
      const p = oneOf(provider, PROVIDERS, `${path}.image (key)`);
      image[p] = validateImageRule(r, `${path}.image.${provider}`);
    }
    rule.image = image;
  }
  return rule;
}

export function validateReferences(v: unknown, path: string): Map<string, Reference> {
  const out = new Map<string, Reference>();
  if (v === undefined) return out;
  const o = obj(v, path);
  for (const [key, r] of Object.entries(o)) {
    const p = `${path}.${key}`;
    const ro = obj(r, p);
    onlyKeys(ro, ['title', 'url', 'date'], p);
    const ref: Reference = { title: str(ro.title, `${p}.title`), date: str(ro.date, `${p}.date`) };
    if (!/^\d{4}-\d{2}(-\d{2})?$/.test(ref.date)) fail(`${p}.date`, 'a date YYYY-MM or YYYY-MM-DD', ref.date);
    if (ro.url !== undefined) ref.url = str(ro.url, `${p}.url`);
    out.set(key, ref);
  }
  return out;
}

/** Leaf paths of the figures in a profile, e.g. `image.details.high.patchBudget`. */
export function figurePaths(profile: Profile): string[] {
  const out: string[] = ['contextWindow', 'maxOutput', 'vision', 'overflowPatterns'];
  const walk = (v: unknown, prefix: string): void => {
    if (isObject(v)) for (const [k, x] of Object.entries(v)) walk(x, `${prefix}.${k}`);
    else out.push(prefix);
  };
  walk(profile.images, 'images');
  walk(profile.image, 'image');
  walk(profile.cache, 'cache');
  return out;
}

/** Figures of `profile` that no source entry covers (a source field covers itself and everything under it). */
export function uncitedFigures(profile: Profile): string[] {
  const fields = profile.sources.flatMap((s) => s.fields);
  return figurePaths(profile).filter((p) => !fields.some((f) => p === f || p.startsWith(`${f}.`)));
}
