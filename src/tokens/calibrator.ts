/**
 * Calibration: learn, per model, how the provider's reported input tokens relate to our estimate.
 *
 * The estimate is a fast character count; the provider tokenises for real. Their ratio is steady for
 * a given model and kind of content, so an exponentially weighted mean of reported/estimated tracks it
 * and follows slow drift (a conversation turning from prose to code). The state is plain JSON the
 * caller stores wherever it likes; `Calibrator.fromJSON` validates it on the way back in.
 */
import { parseOverflowError } from '../providers/index.js';

/** Serialisable calibrator state. */
export interface CalibrationState {
  version: 1;
  /** Weight of the newest observation in (0, 1]. */
  alpha: number;
  models: Record<string, { ratio: number; samples: number }>;
}

export interface CalibratorOptions {
  /** Weight of the newest observation; default 0.7: a conversation's mix of prose, code and schema drifts turn by turn, and tokenisers are deterministic, so recent turns are the better guide. */
  alpha?: number;
}

function checkAlpha(alpha: number, where: string): number {
  if (!(alpha > 0 && alpha <= 1)) throw new RangeError(`${where}: alpha must be in (0, 1], found ${alpha}`);
  return alpha;
}

export class Calibrator {
  readonly alpha: number;
  private readonly models = new Map<string, { ratio: number; samples: number }>();

  constructor(options: CalibratorOptions = {}) {
    this.alpha = checkAlpha(options.alpha ?? 0.7, 'Calibrator');
  }

  /**
   * Records one response: `estimated` is what we predicted for the request, `reported` what the
   * provider billed as input (for Anthropic: input + cache read + cache write tokens). Returns the new
   * ratio. An overflow error's measured count is an observation too.
   */
  observe(model: string, estimated: number, reported: number): number {
    if (!(estimated > 0) || !Number.isFinite(estimated))
      throw new RangeError(
        `Calibrator.observe(${model}): estimated must be a positive number, found ${estimated}`,
      );
    if (!(reported >= 0) || !Number.isFinite(reported))
      throw new RangeError(
        `Calibrator.observe(${model}): reported must be a non-negative number, found ${reported}`,
      );
    const sample = reported / estimated;
    const prev = this.models.get(model);
    const next = prev
      ? { ratio: prev.ratio + this.alpha * (sample - prev.ratio), samples: prev.samples + 1 }
      : { ratio: sample, samples: 1 };
    this.models.set(model, next);
    return next.ratio;
  }

  /**
   * Learns from a context-overflow error: when the provider's message carries its measured token
   * count (Anthropic, OpenAI Chat, Gemini do; the Responses API does not), that count is an
   * observation for the request we estimated at `estimated`. Returns the parsed count, or undefined
   * when the error is not an overflow or carries no count (nothing is learned then).
   */
  observeOverflow(model: string, estimated: number, error: unknown): number | undefined {
    const measured = parseOverflowError(error)?.measuredTokens;
    if (measured === undefined) return undefined;
    this.observe(model, estimated, measured);
    return measured;
  }

  /** reported/estimated for `model`; 1 before the first observation. */
  ratio(model: string): number {
    return this.models.get(model)?.ratio ?? 1;
  }

  /** Observations recorded for `model`. */
  samples(model: string): number {
    return this.models.get(model)?.samples ?? 0;
  }

  /** An estimate corrected by what the provider has reported so far. */
  apply(model: string, estimated: number): number {
    return Math.ceil(estimated * this.ratio(model));
  }

  toJSON(): CalibrationState {
    const models: CalibrationState['models'] = {};
    for (const [k, v] of [...this.models].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      models[k] = { ...v };
    return { version: 1, alpha: this.alpha, models };
  }

  /** Rebuilds a calibrator from `toJSON()` output; says which field is wrong when it is not. */
  static fromJSON(json: unknown): Calibrator {
    const where = 'Calibrator.fromJSON';
    if (json === null || typeof json !== 'object')
      throw new TypeError(`${where}: expected an object, found ${typeof json}`);
    const s = json as Partial<CalibrationState>;
    if (s.version !== 1)
      throw new TypeError(`${where}: expected version 1, found ${JSON.stringify(s.version)}`);
    const cal = new Calibrator({ alpha: checkAlpha(Number(s.alpha), where) });
    if (s.models === null || typeof s.models !== 'object')
      throw new TypeError(`${where}: expected 'models' to be an object, found ${typeof s.models}`);
    for (const [model, v] of Object.entries(s.models)) {
      const ratio = (v as { ratio?: unknown })?.ratio;
      const samples = (v as { samples?: unknown })?.samples;
      if (typeof ratio !== 'number' || !(ratio > 0) || !Number.isFinite(ratio))
        throw new TypeError(
          `${where}: models['${model}'].ratio must be a positive number, found ${JSON.stringify(ratio)}`,
        );
      if (typeof samples !== 'number' || !Number.isInteger(samples) || samples < 1)
        throw new TypeError(
          `${where}: models['${model}'].samples must be a positive integer, found ${JSON.stringify(samples)}`,
        );
      cal.models.set(model, { ratio, samples });
    }
    return cal;
  }
}
