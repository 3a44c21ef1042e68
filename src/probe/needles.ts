/**
 * Needles: short values the probe plants in a document and asks the model to read back. Four kinds,
 * each testing a different failure of small glyphs: codes (mixed letters and digits, no context to
 * guess from), numbers (digit confusions such as 3/8, 1/7), identifiers (long, case-sensitive) and
 * a quoted sentence (ordinary words, where a model can guess from language).
 */
import type { Rng } from './random.js';

export type NeedleKind = 'code' | 'number' | 'identifier' | 'quote';
export const NEEDLE_KINDS: readonly NeedleKind[] = ['code', 'number', 'identifier', 'quote'];

export interface Needle {
  /** `N01`, `N02`, … in planting order; the question lists them. */
  label: string;
  kind: NeedleKind;
  /** What a perfect reader answers. */
  value: string;
  /** 1-based page the needle was planted on. */
  page: number;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const VERBS = [
  'rebuild',
  'resolve',
  'parse',
  'flush',
  'merge',
  'render',
  'measure',
  'shed',
  'rotate',
  'index',
];
const NOUNS = [
  'Session',
  'Quota',
  'Header',
  'Ledger',
  'Window',
  'Cursor',
  'Budget',
  'Anchor',
  'Shard',
  'Token',
];
const TAILS = ['Index', 'Block', 'State', 'Table', 'Queue', 'Span', 'Limit', 'Frame', 'Mark', 'Chain'];
const ADJECTIVES = [
  'amber',
  'quiet',
  'narrow',
  'silver',
  'patient',
  'crooked',
  'early',
  'hollow',
  'bright',
  'distant',
];
const SUBJECTS = ['falcon', 'ferryman', 'orchard', 'lantern', 'glacier', 'cartographer', 'violin', 'harbour'];
const ACTIONS = ['counts', 'remembers', 'carries', 'follows', 'mends', 'guards', 'outlasts', 'repaints'];
const NUMBERS = ['eleven', 'seven', 'forty', 'three', 'ninety', 'twelve', 'sixty', 'two'];
const OBJECTS = ['lanterns', 'bridges', 'letters', 'winters', 'kettles', 'ladders', 'rivers', 'engines'];

const chars = (r: Rng, alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet[r.int(0, alphabet.length - 1)]).join('');

/** A value of `kind`, drawn from `r`. */
export function needleValue(kind: NeedleKind, r: Rng): string {
  switch (kind) {
    case 'code':
      return `${chars(r, ALNUM, 3)}-${chars(r, ALNUM, 5)}`;
    case 'number':
      return `${r.int(1, 9)}${chars(r, '0123456789', r.int(3, 5))}.${chars(r, '0123456789', 2)}`;
    case 'identifier':
      return `${r.pick(VERBS)}${r.pick(NOUNS)}${r.pick(TAILS)}_${chars(r, LOWER_ALNUM, 2)}`;
    case 'quote': {
      const words = [
        r.pick(ADJECTIVES),
        r.pick(SUBJECTS),
        r.pick(ACTIONS),
        r.pick(NUMBERS),
        r.pick(ADJECTIVES),
        r.pick(OBJECTS),
      ];
      return `The ${words.join(' ')}.`;
    }
  }
}
