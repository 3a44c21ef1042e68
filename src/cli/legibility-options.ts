/** The legibility options `glyphfold compact` and `glyphfold shapes` share: --max-cer, --legibility, --variant. */
import { readFile } from 'node:fs/promises';
import { validateLegibility, type LegibilityTable } from '../providers/index.js';
import { parseVariant, variantId } from '../render/index.js';
import { UsageError } from './command.js';

/** `--max-cer`: a fraction (0.02) or a percentage (2%), from 0 to 1. */
export function maxCerOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(%?)\s*$/.exec(value);
  const n = m ? Number(m[1]) / (m[2] ? 100 : 1) : NaN;
  if (!(n >= 0 && n <= 1)) {
    throw new UsageError(
      `--max-cer expects an error rate from 0 to 1 or 0% to 100% (e.g. 0.02 or 2%), found '${value}'`,
    );
  }
  return n;
}

/** `--variant`: a page variant id, written back canonically. */
export function variantOption(value: string): string {
  try {
    return variantId(parseVariant(value));
  } catch (err) {
    throw new UsageError(`--variant: ${(err as Error).message}`);
  }
}

/** `--legibility FILE`: a legibility table (providers/legibility.json format), validated. */
export async function readLegibilityFile(file: string, shown: string): Promise<LegibilityTable> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read legibility file ${file}: ${(err as Error).message}`, { cause: err });
  }
  return validateLegibility(json, shown);
}
