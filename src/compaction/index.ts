/**
 * The compaction ladder: elide → shed → snapshot → summarize, cheapest first, stopping as soon as the
 * request fits. Rungs are pure functions of (path, profile, budget, options); `policy` wires in the
 * real profiles, renderer, views and estimates; the record is never touched (compaction items are
 * returned for the caller to append).
 */
export {
  RUNGS,
  type RungName,
  type Estimator,
  type CompactionProfile,
  type RungReport,
  type RungResult,
} from './types.js';
export {
  computeBudget,
  resolveThreshold,
  DEFAULT_TRIGGER,
  type Budget,
  type BudgetOptions,
  type Threshold,
} from './budget.js';
export { elide, ELIDE_DEFAULTS, type ElideOptions } from './elide.js';
export { shed, SHED_DEFAULTS, type ShedOptions } from './shed.js';
export { referencedResults } from './refs.js';
export { validCuts } from './cuts.js';
export { planSnapshot, type PlanOptions, type Segment, type SnapshotPlan } from './plan.js';
export {
  formatItem,
  formatItems,
  itemHeader,
  itemBody,
  toolInputText,
  type TextOptions,
  type ToolInputFormat,
  type ToolOutputFormat,
} from './text.js';
export {
  snapshot,
  applySnapshot,
  renderPages,
  rowsUpperBound,
  pageRows,
  pageVariant,
  readingHint,
  snapshotHeader,
  SNAPSHOT_TEXT,
  SNAPSHOT_OUTPUT,
  type PageSpec,
  type SnapshotRenderOptions,
  type SnapshotRenderer,
  type SnapshotLimits,
  type SnapshotOptions,
  type SnapshotDecision,
  type SnapshotResult,
  type RenderedRun,
} from './snapshot.js';
export {
  choosePage,
  candidateTokens,
  lineHistogram,
  totalRows,
  type LineHistogram,
  type PageCandidate,
} from './page-width.js';
export {
  summarize,
  summarySource,
  chunkTranscript,
  anthropicSummarizer,
  openaiSummarizer,
  geminiSummarizer,
  GeminiSummarizerError,
  MAX_SUMMARIZER_OVERFLOWS,
  SUMMARY_SECTIONS,
  type SummarizerClient,
  type SummarizeOptions,
  type SummaryResult,
} from './summarize.js';
export {
  cacheWarm,
  cacheStatus,
  type CacheStatus,
  compactionEconomics,
  shouldCompact,
  DEFAULT_CACHE_TTL_SECONDS,
  type CacheState,
  type Economics,
  type Decision,
} from './economics.js';
export {
  formatReport,
  describeLegibility,
  type CompactionReport,
  type SnapshotFigures,
  type SnapshotLegibility,
} from './report.js';
export { lastGroup, rebuildRequest, stickyIds, type CompactionRecord } from './record.js';
export { climb, type LadderOptions, type LadderResult } from './ladder.js';
export { skipped, type Rung, type RungStep, type RungSkip, type LadderState } from './rung.js';
export {
  DEFAULT_LADDER,
  SHAKE_LADDER,
  elideRung,
  shedRung,
  snapshotRung,
  summarizeRung,
  DEFAULT_TAIL_FRACTIONS,
  DEFAULT_PERSON_FRACTION,
} from './rungs.js';
export { itemEstimator, textEstimator } from './estimate.js';
export {
  setupCompaction,
  prepareRequest,
  sendWithCompaction,
  isPreparedFor,
  type NamedWire,
  pageCandidates,
  pageLegibility,
  legibilityTable,
  expectedLegibility,
  RENDERER,
  POOL_MIN_PAGES,
  pooledRenderer,
  type PagePool,
  DEFAULT_WIRE,
  MIN_COLS,
  EARLY_TARGET,
  UNCOUNTED_OVERFLOW_FACTOR,
  overflowCount,
  CompactionOverflowError,
  type CompactionOptions,
  type CompactionSetup,
  type PageLegibility,
  type PreparedRequest,
  type SendResult,
} from './policy.js';
