/** The instruction sent with the pages: what to read and the strict answer format `score.ts` parses. */
import type { Needle } from './needles.js';

export function question(needles: readonly Needle[], pages: number): string {
  const labels = needles.map((n) => n.label);
  return [
    `The ${pages === 1 ? 'image above is one page' : `${pages} images above are consecutive pages`} of a document ` +
      'rendered in a small fixed-width bitmap font, read left to right, top to bottom' +
      `${pages === 1 ? '' : ', page after page'}. A row that ends in a special mark continues on the next row.`,
    `The document contains ${labels.length} labelled values (${labels[0]} to ${labels.at(-1)}). Each label is ` +
      'followed by its value: a code, a number, an identifier, or a sentence in double quotes.',
    'Copy each value exactly as written: the same letters, digits, case and punctuation; for a sentence, ' +
      'the words between the quotes.',
    `Answer with exactly one line per label, in label order, in the form "${labels[0]}: value", and nothing else. ` +
      `If you cannot read a value, write "${labels[0]}: ?".`,
  ].join('\n\n');
}
