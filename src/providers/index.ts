/**
 * Provider profiles: model ids as routes name them → context windows, image token rules, limits, cache
 * prices, overflow messages, and the best snapshot page shape. Edge-safe: no Node-only imports.
 */
export * from './types.js';
export {
  ProfileDataError,
  validateProfile,
  validateRouteRule,
  uncitedFigures,
  figurePaths,
  FAMILY_PATTERN,
} from './validate.js';
export {
  loadProfileFile,
  registerProfiles,
  resetProfiles,
  listProfiles,
  getProfile,
  getRouteRule,
  getReference,
  type LoadedProfiles,
} from './registry.js';
export {
  normalizeModelId,
  matchFamily,
  conservativeProfile,
  resolveProfile,
  type ResolveOptions,
  type NormalizedId,
} from './resolve.js';
export {
  imageTokens,
  imageCost,
  unresizedCost,
  wouldResize,
  detailLevels,
  fitPatchBudget,
  type ImageOptions,
  type ImageCost,
} from './image-tokens.js';
export {
  bestPageShape,
  largestPage,
  legiblePageShape,
  pageBytesMax,
  pagesPerRequest,
  type LegiblePageChoice,
  type PageShapeOptions,
  type PageShapeChoice,
} from './page-shape.js';
export { pngBytesMax, base64Size } from './png-size.js';
export { parseOverflowError, type OverflowInfo } from './overflow.js';
export {
  DEFAULT_MAX_CER,
  READER_FAMILY_PATTERN,
  LegibilityDataError,
  builtInLegibility,
  measuredCer,
  mergeLegibility,
  readableVariants,
  validateLegibility,
  type LegibilityEntry,
  type LegibilityMeasurement,
  type LegibilitySelection,
  type LegibilityTable,
  type ReadableVariant,
} from './legibility.js';
