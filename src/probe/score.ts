/**
 * Grading answers. `exact`: the answer equals the value after trimming whitespace and one pair of
 * wrapping quotes or backticks (case and inner spacing count). `partial`: normalized edit distance —
 * Levenshtein distance divided by the longer length — at most 0.2, i.e. roughly one character in five
 * wrong. `none`: anything further off, `?`, or no answer line for the label.
 */
import { NEEDLE_KINDS, type Needle, type NeedleKind } from './needles.js';

export type Grade = 'exact' | 'partial' | 'none';

/** The partial-credit threshold on normalized edit distance. */
export const PARTIAL_MAX_DISTANCE = 0.2;

/** Levenshtein distance (insert, delete, substitute, each cost 1), two-row dynamic programme. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** Edit distance divided by the longer string's length: 0 identical, 1 nothing in common. */
export function normalizedDistance(a: string, b: string): number {
  const longer = Math.max(a.length, b.length);
  return longer === 0 ? 0 : editDistance(a, b) / longer;
}

function clean(answer: string): string {
  let s = answer.trim();
  const pairs: [string, string][] = [
    ['"', '"'],
    ["'", "'"],
    ['`', '`'],
    ['“', '”'],
  ];
  for (const [open, close] of pairs) {
    if (s.length >= 2 && s.startsWith(open) && s.endsWith(close)) {
      s = s.slice(1, -1).trim();
      break;
    }
  }
  return s;
}

/** Grades one answer against the planted value. */
export function grade(expected: string, answer: string | undefined): Grade {
  if (answer === undefined) return 'none';
  const found = clean(answer);
  if (found === '' || found === '?') return 'none';
  if (found === expected) return 'exact';
  return normalizedDistance(found, expected) <= PARTIAL_MAX_DISTANCE ? 'partial' : 'none';
}

/**
 * Reads `LABEL: value` lines from a reply. Tolerates list bullets, bold markers and a code fence;
 * the first line for a label wins. Labels not in `labels` are ignored.
 */
export function parseAnswers(reply: string, labels: readonly string[]): Map<string, string> {
  const wanted = new Set(labels);
  const out = new Map<string, string>();
  for (const raw of reply.split(/\r?\n/)) {
    const m = /^\s*(?:[-*]\s+)?(?:\*\*)?(N\d{2,})(?:\*\*)?\s*[:=]\s*(.*)$/.exec(raw);
    if (!m || !wanted.has(m[1]!) || out.has(m[1]!)) continue;
    out.set(m[1]!, m[2]!.replace(/\*\*$/, ''));
  }
  return out;
}

export interface NeedleResult extends Needle {
  answer: string | undefined;
  grade: Grade;
}

export type KindRecall = Record<Grade, number> & { total: number };

export interface Recall {
  needles: NeedleResult[];
  byKind: Record<NeedleKind, KindRecall>;
  overall: KindRecall;
}

/** Grades every needle and counts exact / partial / none per kind and overall. */
export function scoreAnswers(needles: readonly Needle[], reply: string): Recall {
  const answers = parseAnswers(
    reply,
    needles.map((n) => n.label),
  );
  const empty = (): KindRecall => ({ exact: 0, partial: 0, none: 0, total: 0 });
  const byKind = Object.fromEntries(NEEDLE_KINDS.map((k) => [k, empty()])) as Record<NeedleKind, KindRecall>;
  const overall = empty();
  const results = needles.map((n) => {
    const answer = answers.get(n.label);
    const g = grade(n.value, answer);
    for (const bucket of [byKind[n.kind], overall]) {
      bucket[g]++;
      bucket.total++;
    }
    return { ...n, answer, grade: g };
  });
  return { needles: results, byKind, overall };
}
