/**
 * Per-item token estimates for the ladder's decisions. views' `estimateTokens` counts a whole request
 * (the authoritative figure, used for the final fit); the ladder needs one number per item to choose
 * what to cut, so this applies the same constants (characters per token, block overhead, the profile's
 * image rule, the calibrator's ratio) to one item at a time.
 */
import { detailLevels, imageTokens, type Profile } from '../providers/index.js';
import {
  BLOCK_OVERHEAD,
  DEFAULT_CHARS_PER_TOKEN,
  UNKNOWN_IMAGE_TOKENS,
  type Calibrator,
} from '../tokens/index.js';
import { imageSizeBase64 } from '../transcript/image-size.js';
import type { ImageData, Item } from '../transcript/items.js';
import { wrapContext, wrapDigest, wrapSummary } from '../views/index.js';
import type { Estimator } from './types.js';

export interface ItemEstimatorOptions {
  model: string;
  calibrator?: Calibrator;
  charsPerToken?: number;
  /** OpenAI image detail the request sends (default `high`). */
  detail?: string;
}

/** Tokens of one image under `profile`'s rule; unknown sizes count as a full Claude page. */
export function imageEstimate(profile: Profile, image: ImageData, detail?: string): number {
  const size =
    image.width !== undefined && image.height !== undefined
      ? { width: image.width, height: image.height }
      : imageSizeBase64(image.data);
  if (!size) return UNKNOWN_IMAGE_TOKENS;
  const useDetail = detail !== undefined && detailLevels(profile).includes(detail);
  return imageTokens(profile, size.width, size.height, useDetail ? { detail } : {});
}

/** An `Estimator` for `profile`, calibrated by what the provider has reported for `model`. */
export function itemEstimator(profile: Profile, options: ItemEstimatorOptions): Estimator {
  const cpt = options.charsPerToken ?? DEFAULT_CHARS_PER_TOKEN;
  const ratio = options.calibrator?.ratio(options.model) ?? 1;
  const vision = profile.vision;
  const img = (i: ImageData) => (vision ? imageEstimate(profile, i, options.detail) : 16);
  return (item: Item): number => {
    let chars = 0;
    let images = 0;
    switch (item.kind) {
      case 'message':
        chars = item.text.length;
        break;
      case 'context':
        chars = wrapContext(item.text, item.source).length;
        break;
      case 'reasoning':
        chars = item.text.length + ((item.encrypted?.length ?? 0) * 3) / 4;
        break;
      case 'tool_call':
        chars = item.name.length + (JSON.stringify(item.input ?? {})?.length ?? 0);
        break;
      case 'tool_result':
        chars = item.callId.length;
        for (const p of item.content) {
          if (p.type === 'text') chars += p.text.length;
          else images += img(p);
        }
        break;
      case 'image':
        chars = item.text?.length ?? 0;
        images = img(item);
        break;
      case 'summary':
        chars = wrapSummary(item).length;
        break;
      case 'digest':
        chars = wrapDigest(item).length;
        break;
      case 'compaction':
        return item.summary ? Math.ceil(wrapSummary(item).length / cpt) : 0;
    }
    return Math.ceil((chars / cpt + images + BLOCK_OVERHEAD) * ratio);
  };
}

/** Tokens of a plain text, calibrated. */
export function textEstimator(options: ItemEstimatorOptions): (text: string) => number {
  const cpt = options.charsPerToken ?? DEFAULT_CHARS_PER_TOKEN;
  const ratio = options.calibrator?.ratio(options.model) ?? 1;
  return (text) => Math.ceil((text.length / cpt) * ratio);
}
