/** The legibility probe: do models read glyphfold's pages? Node only (it calls provider APIs). */
export { runProbe } from './probe.js';
export type { ProbeOptions, ProbeResult } from './probe.js';
export { buildDocument, rowsOf } from './document.js';
export type { ProbeDocument, DocumentOptions } from './document.js';
export { NEEDLE_KINDS, needleValue } from './needles.js';
export type { Needle, NeedleKind } from './needles.js';
export {
  editDistance,
  grade,
  normalizedDistance,
  parseAnswers,
  scoreAnswers,
  PARTIAL_MAX_DISTANCE,
} from './score.js';
export type { Grade, KindRecall, NeedleResult, Recall } from './score.js';
export { anthropicClient, openaiClient } from './clients.js';
export type { ClientOptions, ProbeCall, ProbeReply, ProviderClient } from './clients.js';
export { connect, MissingKeyError } from './connect.js';
export { question } from './question.js';
export { rng } from './random.js';
export { transcribeKit, TRANSCRIBE_REQUEST, unfence } from './transcribe.js';
export type { TranscribeOptions, TranscribeResult } from './transcribe.js';
