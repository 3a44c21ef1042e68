/**
 * Reading texts for the legibility bench: seeded, deterministic, made of invented words, identifiers,
 * hashes and numbers (nothing a model could have memorised, so a right character can only come from
 * reading the page). Each text mixes segments of every content kind, labelled here and not in the
 * text, and records needles (exact strings worth finding) with their offsets.
 */
import { rng, type Rng } from '../../src/probe/random.js';
import { normalize } from '../../src/render/index.js';

export const CONTENT_KINDS = [
  'prose',
  'code',
  'shell',
  'kernel',
  'packages',
  'hex',
  'json',
  'table',
  'paths',
  'numbers',
] as const;
export type ContentKind = (typeof CONTENT_KINDS)[number];

export const NEEDLE_KINDS = ['hex', 'number', 'identifier', 'path', 'quote'] as const;
export type NeedleKind = (typeof NEEDLE_KINDS)[number];

/** Longest line of a text in code points: a `lines` page of 84 columns never wraps it. */
export const MAX_LINE = 84;
export const MIN_CHARS = 2300;
export const MAX_CHARS = 2600;

export interface Segment {
  kind: ContentKind;
  /** Code point offsets in the text, `[start, end)`; the newline after a segment belongs to it. */
  start: number;
  end: number;
}

export interface TextNeedle {
  kind: NeedleKind;
  value: string;
  /** Code point offset of the value in the text. */
  at: number;
}

export interface ReadingText {
  id: string;
  seed: number;
  /** Normalized (`normalize(text) === text`). */
  text: string;
  segments: Segment[];
  needles: TextNeedle[];
}

interface Piece {
  lines: string[];
  needles: { kind: NeedleKind; value: string }[];
}

// ------------------------------------------------------------------ invented vocabulary

const ONSETS = [
  'b',
  'd',
  'f',
  'g',
  'k',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  't',
  'v',
  'z',
  'br',
  'st',
  'tr',
  'gl',
  'qu',
  'sh',
];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou', 'ea'];
const CODAS = ['', '', 'n', 'r', 'l', 'm', 'x', 'st', 'nd', 'k'];
const FUNCTION = ['the', 'a', 'each', 'every', 'no', 'one', 'this', 'that'];
const VERBS = ['drops', 'keeps', 'moves', 'counts', 'splits', 'holds', 'sends', 'marks', 'skips', 'folds'];
const LINKS = ['before', 'after', 'until', 'unless', 'while', 'because', 'once'];
const HEX = '0123456789abcdef';

function word(r: Rng, syllables = r.int(2, 3)): string {
  let w = '';
  for (let i = 0; i < syllables; i++) w += r.pick(ONSETS) + r.pick(VOWELS);
  return w + r.pick(CODAS);
}
const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);
const hex = (r: Rng, n: number) => Array.from({ length: n }, () => HEX[r.int(0, 15)]).join('');
const digits = (r: Rng, n: number) => Array.from({ length: n }, () => String(r.int(0, 9))).join('');
const camel = (r: Rng) => word(r, 2) + cap(word(r, 2)) + (r.next() < 0.5 ? cap(word(r, 1)) : '');
const snake = (r: Rng) => `${word(r, 2)}_${word(r, 2)}${r.next() < 0.4 ? '_' + word(r, 1) : ''}`;
const float = (r: Rng, int: number, frac: number) => `${r.int(1, 9)}${digits(r, int - 1)}.${digits(r, frac)}`;
const uuid = (r: Rng) =>
  `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-${r.pick(['8', '9', 'a', 'b'])}${hex(r, 3)}-${hex(r, 12)}`;
const mac = (r: Rng) => Array.from({ length: 6 }, () => hex(r, 2)).join(':');
const ip = (r: Rng) => `10.${r.int(0, 255)}.${r.int(0, 255)}.${r.int(1, 254)}`;
const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);
const two = (n: number) => String(n).padStart(2, '0');
const time = (r: Rng) => `${two(r.int(0, 23))}:${two(r.int(0, 59))}:${two(r.int(0, 59))}`;
const date = (r: Rng) => `2026-${two(r.int(1, 12))}-${two(r.int(1, 28))}`;
const path = (r: Rng, ext: string) =>
  `${r.pick(['src', 'lib', 'pkg', 'app'])}/${word(r, 2)}/${word(r, 2)}.${ext}`;

function sentence(r: Rng): string {
  const s = `${cap(r.pick(FUNCTION))} ${word(r)} ${r.pick(VERBS)} ${r.pick(FUNCTION)} ${word(r)} ${r.pick(LINKS)} ${r.pick(FUNCTION)} ${word(r)} ${r.pick(VERBS)}`;
  return r.next() < 0.3 ? `${s} ${r.int(2, 99)} ${word(r, 1)}s.` : `${s}.`;
}

/** Greedy word wrap at `width` (words never exceed it here). */
function wrap(text: string, width: number, indent = ''): string[] {
  const out: string[] = [];
  let line = '';
  for (const w of text.split(' ')) {
    if (line === '') line = w;
    else if (line.length + 1 + w.length <= width) line += ' ' + w;
    else {
      out.push(line);
      line = indent + w;
    }
  }
  if (line) out.push(line);
  return out;
}

// ------------------------------------------------------------------ one generator per kind

type Gen = (r: Rng, size: number) => Piece;

const GENERATORS: Record<ContentKind, Gen> = {
  prose(r, size) {
    const quote = `${r.pick(FUNCTION)} ${word(r)} ${r.pick(VERBS)} ${r.int(2, 9)} ${word(r)}s`;
    const ident = camel(r);
    const heading = `${'#'.repeat(r.int(1, 3))} ${cap(word(r))} ${word(r)} ${word(r, 2)}`;
    // The quote is kept on one line: its spaces are held as NUL through the wrap.
    const held = quote.replaceAll(' ', '\0');
    const para = [
      sentence(r),
      `Note the *${word(r)}* rule: "${held}" — see \`${ident}\`.`,
      ...Array.from({ length: size }, () => sentence(r)),
    ];
    const lines = [heading, '', ...wrap(para.join(' '), 78).map((l) => l.replaceAll('\0', ' ')), ''];
    for (let i = 0; i < Math.max(2, size); i++)
      lines.push(`- **${word(r)}**: ${sentence(r).toLowerCase()}`.slice(0, MAX_LINE).trimEnd());
    return {
      lines,
      needles: [
        { kind: 'quote', value: `"${quote}"` },
        { kind: 'identifier', value: ident },
      ],
    };
  },
  code(r, size) {
    const fn = camel(r);
    const limit = String(r.int(100, 99999));
    if (r.next() < 0.5) {
      const lines = [
        `export async function ${fn}(${word(r, 1)}: ${cap(word(r, 2))}[], limit = ${limit}) {`,
        `  let total = 0;`,
        `  for (const item of ${word(r, 2)}) {`,
        `    if (item.${camel(r)} > ${r.int(2, 999)}) {`,
        `      total += Math.min(item.size, ${float(r, 2, 2)});`,
        `    } else if (!item.${word(r, 2)}) continue;`,
        `  }`,
      ];
      for (let i = 0; i < size; i++)
        lines.push(`  const ${word(r, 2)} = await ${camel(r)}(total, '${word(r)}', ${r.int(0, 4096)});`);
      lines.push(`  return total > limit ? limit : total;`, `}`);
      return {
        lines,
        needles: [
          { kind: 'identifier', value: fn },
          { kind: 'number', value: limit },
        ],
      };
    }
    const name = snake(r);
    const lines = [
      `def ${name}(${word(r, 2)}, retries=${r.int(2, 9)}, timeout=${float(r, 2, 1)}):`,
      `    """${cap(word(r))} the ${word(r)} table and return the ${word(r)} count."""`,
      `    seen = {}`,
      `    for key, value in ${word(r, 2)}.items():`,
      `        if value is None or key.startswith("${word(r, 1)}_"):`,
      `            continue`,
    ];
    for (let i = 0; i < size; i++)
      lines.push(`        seen[key] = ${snake(r)}(value, ${r.int(0, 999)}) or ${limit}`);
    lines.push(`    return len(seen)`);
    return {
      lines,
      needles: [
        { kind: 'identifier', value: name },
        { kind: 'number', value: limit },
      ],
    };
  },
  shell(r, size) {
    const host = `${word(r, 2)}@${word(r, 2)}`;
    const dir = `~/${word(r, 2)}`;
    const build = `${float(r, 1, 2)}s`;
    const lines = [`${host}:${dir}$ npm run ${word(r, 2)} -- --filter ${word(r, 2)}`];
    for (let i = 0; i < size + 1; i++)
      lines.push(
        `[${date(r)}T${time(r)}.${digits(r, 3)}Z] ${word(r)}: ${r.int(1, 9999)} ${word(r)}s in ${float(r, 2, 1)} ms`,
      );
    lines.push(`✓ built in ${build}`, `${host}:${dir}$ echo $?`, '0');
    return { lines, needles: [{ kind: 'number', value: build }] };
  },
  kernel(r, size) {
    let t = r.int(1, 9999) + r.next();
    const m = mac(r);
    const addr = ip(r);
    const pci = `0000:${two(r.int(0, 99))}:${two(r.int(0, 31))}.${r.int(0, 7)}`;
    const ts = () => `[${lpad((t += r.next() * 3).toFixed(6), 12)}]`;
    const dev = `${r.pick(['eth', 'wlan', 'enp'])}${r.int(0, 9)}`;
    const lines = [
      `${ts()} ${word(r, 2)} ${pci}: [${hex(r, 4)}:${hex(r, 4)}] type 00 class 0x0${hex(r, 5)}`,
      `${ts()} ${word(r, 2)} ${pci} ${dev}: link up, MAC ${m}`,
      `${ts()} ${dev}: leased ${addr}/24 via ${ip(r)} (${r.int(60, 86400)}s)`,
    ];
    for (let i = 0; i < size; i++)
      lines.push(
        `${ts()} ${word(r, 2)}[${r.int(100, 65535)}]: ${word(r)} ${hex(r, 8)} at ${ip(r)}:${r.int(1024, 65535)}`,
      );
    return {
      lines,
      needles: [
        { kind: 'hex', value: m },
        { kind: 'number', value: addr },
      ],
    };
  },
  packages(r, size) {
    const lines = [`Package${' '.repeat(17)}Version${' '.repeat(9)}Hash`];
    const needles: Piece['needles'] = [];
    for (let i = 0; i < size + 2; i++) {
      const h = hex(r, r.int(7, 12));
      const version = `${r.int(0, 12)}.${r.int(0, 40)}.${r.int(0, 99)}${r.next() < 0.3 ? `-${r.int(1, 9)}` : ''}`;
      lines.push(`${pad(`lib${word(r, 2)}${r.next() < 0.3 ? '-dev' : ''}`, 24)}${pad(version, 16)}${h}`);
      if (i === 0) needles.push({ kind: 'hex', value: h }, { kind: 'number', value: version });
    }
    return { lines, needles };
  },
  hex(r, size) {
    const commit = hex(r, 7);
    const sum = hex(r, 64);
    const id = uuid(r);
    const lines = [
      `${commit} ${r.pick(['fix', 'feat', 'chore'])}(${word(r, 2)}): ${word(r)} the ${word(r)} ${word(r, 2)}`,
    ];
    for (let i = 0; i < size; i++) lines.push(`${hex(r, 7)} ${word(r)} ${word(r)} ${word(r, 2)}`);
    lines.push(`${sum}  ${word(r, 2)}.tar.gz`, `session ${id}`);
    return {
      lines,
      needles: [
        { kind: 'hex', value: commit },
        { kind: 'hex', value: sum },
        { kind: 'hex', value: id },
      ],
    };
  },
  json(r, size) {
    const id = `${word(r, 1)}_${hex(r, 10)}`;
    const n = float(r, 3, 3);
    const lines = ['{', `  "id": "${id}",`, `  "${camel(r)}": ${n},`, `  "items": [`];
    for (let i = 0; i < size + 1; i++)
      lines.push(
        `    { "name": "${word(r)}", "count": ${r.int(0, 99999)}, "tags": [${r.int(1, 99)}, ${r.int(100, 999)}] }${i < size ? ',' : ''}`,
      );
    lines.push('  ],', `  "ok": ${r.next() < 0.5}`, '}');
    return {
      lines,
      needles: [
        { kind: 'hex', value: id },
        { kind: 'number', value: n },
      ],
    };
  },
  table(r, size) {
    const lines = [`| ${cap(word(r, 2))} | runs | p50 ms | p99 ms | share |`, '|---|---:|---:|---:|---:|'];
    let needle = '';
    for (let i = 0; i < size + 2; i++) {
      const p99 = float(r, 3, 1);
      if (i === 0) needle = p99;
      lines.push(
        `| ${word(r)} | ${r.int(1, 9999)} | ${float(r, 2, 2)} | ${p99} | ${r.int(0, 99)}.${r.int(0, 9)}% |`,
      );
    }
    return { lines, needles: [{ kind: 'number', value: needle }] };
  },
  paths(r, size) {
    const p = path(r, r.pick(['ts', 'py', 'rs']));
    const at = `${p}:${r.int(10, 999)}:${r.int(1, 80)}`;
    const lines = [`$ ls -l ${word(r, 2)}/`];
    for (let i = 0; i < size + 1; i++) {
      lines.push(
        `-rw-r--r-- 1 ${word(r, 1)} staff ${lpad(String(r.int(100, 999999)), 7)} ${r.pick(['Jan', 'Mar', 'Jul', 'Oct'])} ${lpad(String(r.int(1, 28)), 2)} ${time(r).slice(0, 5)} ${word(r, 2)}.${r.pick(['json', 'md', 'ts'])}`,
      );
    }
    lines.push(`$ find . -name '*.${r.pick(['ts', 'py'])}' | head -${size + 1}`);
    for (let i = 0; i < size; i++) lines.push(`./${path(r, 'ts')}`);
    lines.push(`${at}: error ${word(r, 2)}${r.int(1000, 9999)}: ${word(r)} is not ${word(r)}`);
    return { lines, needles: [{ kind: 'path', value: at }] };
  },
  numbers(r, size) {
    const mem = `${float(r, 2, 1)} MiB`;
    const lines = [
      `${word(r, 2)} metrics ${date(r)} ${time(r)} UTC`,
      `  heap ${mem}  rss ${float(r, 3, 1)} MiB  gc ${float(r, 2, 2)}%`,
    ];
    for (let i = 0; i < size; i++)
      lines.push(
        `  ${pad(word(r), 14)} ${lpad(float(r, 3, 3), 10)}  ${lpad(`${r.int(0, 99)}.${digits(r, 2)}%`, 7)}  ${r.int(1, 999)} ${r.pick(['KiB', 'MiB', 'GiB'])}`,
      );
    return { lines, needles: [{ kind: 'number', value: mem }] };
  },
};

/** Seed of text `index` of a kit seeded `seed`: distinct streams, stable across runs. */
export function textSeed(seed: number, index: number): number {
  return (Math.imul(seed >>> 0, 2654435761) ^ Math.imul(index + 1, 40503)) >>> 0;
}

function cut(piece: Piece): Piece {
  return {
    ...piece,
    lines: piece.lines.map((l) => (l.length > MAX_LINE ? l.slice(0, MAX_LINE) : l).trimEnd()),
  };
}

/**
 * One reading text: a short segment of every kind (shuffled), then more segments of random kinds until
 * it holds at least {@link MIN_CHARS} characters, never more than {@link MAX_CHARS}.
 */
export function generateText(seed: number, index: number): ReadingText {
  const r = rng(textSeed(seed, index));
  const order = [...CONTENT_KINDS];
  for (let i = order.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const chosen: { kind: ContentKind; piece: Piece }[] = [];
  let length = 0;
  const size = (p: Piece) => p.lines.reduce((n, l) => n + [...l].length + 1, 0) + 1;
  for (const kind of order) {
    const piece = cut(GENERATORS[kind](r, 1));
    chosen.push({ kind, piece });
    length += size(piece);
  }
  for (let guard = 0; length < MIN_CHARS && guard < 50; guard++) {
    const kind = r.pick(CONTENT_KINDS);
    const piece = cut(GENERATORS[kind](r, r.int(2, 4)));
    // Drop lines from the end until it fits (keeps at least two).
    while (length + size(piece) > MAX_CHARS && piece.lines.length > 2) piece.lines.pop();
    if (length + size(piece) > MAX_CHARS) continue;
    chosen.splice(r.int(0, chosen.length), 0, { kind, piece });
    length += size(piece);
  }
  // Assemble: segments separated by a blank line that belongs to the segment before it.
  const segments: Segment[] = [];
  const needles: TextNeedle[] = [];
  const cps: string[] = [];
  chosen.forEach(({ kind, piece }, i) => {
    const start = cps.length;
    const body = piece.lines.join('\n') + (i < chosen.length - 1 ? '\n\n' : '');
    const bodyCps = [...body];
    for (const n of piece.needles) {
      const at = body.indexOf(n.value);
      if (at >= 0) needles.push({ kind: n.kind, value: n.value, at: start + [...body.slice(0, at)].length });
    }
    cps.push(...bodyCps);
    segments.push({ kind, start, end: cps.length });
  });
  const text = cps.join('');
  if (normalize(text) !== text) throw new Error(`generator: text ${index} of seed ${seed} is not normalized`);
  return {
    id: `t${String(index + 1).padStart(2, '0')}`,
    seed: textSeed(seed, index),
    text,
    segments,
    needles,
  };
}

/** `count` texts of kit seed `seed`. */
export function generateTexts(seed: number, count: number): ReadingText[] {
  return Array.from({ length: count }, (_, i) => generateText(seed, i));
}

/** The content kind of every code point of `t.text`. */
export function kindsOf(t: ReadingText): ContentKind[] {
  const out: ContentKind[] = [];
  for (const s of t.segments) for (let i = s.start; i < s.end; i++) out.push(s.kind);
  return out;
}
