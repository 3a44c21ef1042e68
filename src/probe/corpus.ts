/**
 * Filler the needles hide in: ordinary technical prose and source code, drawn from fixed banks by a
 * seeded generator. Written for this probe (no copyrighted text, nothing a model has memorised), so a
 * correct answer can only come from reading the page.
 */
import type { Rng } from './random.js';

const SENTENCES = [
  'The build finished a little after midnight, and nobody noticed the warning until the morning.',
  'Each worker pulls a batch from the queue, processes it, and writes a receipt before asking for more.',
  'When the cache is cold, the first request pays for everyone who comes after it.',
  'She rewrote the parser twice before admitting that the grammar itself was ambiguous.',
  'A retry is only safe when the operation can be repeated without changing the outcome.',
  'The logs were rotated every hour, which made the slow leak look like a series of unrelated spikes.',
  'We kept the old endpoint alive for two releases so that clients had time to move.',
  'Most of the latency came from a lock that was held across a network call.',
  'The migration ran in small steps, each one reversible, each one recorded in the ledger.',
  'He measured the same path three times and got three different answers, so he measured the timer.',
  'Timeouts should be shorter at the edge than at the core, or the edge will wait for nothing.',
  'The report listed every file the tool had touched, in the order it had touched them.',
  'Nothing in the design required the clocks to agree, which turned out to be its best property.',
  'The review found no bugs in the new code and four in the code it replaced.',
  'A snapshot of the directory was taken before the rewrite, so the rollback took seconds.',
  'The benchmark was honest only after the warm-up runs were thrown away.',
  'Every message records the one it continues from, and that one decision shapes everything else.',
  'The team agreed to fail loudly on bad input rather than guess what the caller meant.',
  'Compression helped the large pages and hurt the small ones, so the threshold moved twice.',
  'The scheduler favoured short jobs, and the long ones starved until someone added an age bonus.',
  'Reading the error message carefully would have saved most of the afternoon.',
  'The index was rebuilt from the log, which was the only thing trusted to be complete.',
  'Two services disagreed about the time zone, and the invoices landed on the wrong day.',
  'The test suite ran in under a minute, which is the main reason people kept running it.',
  'A fork copies the history with fresh identifiers, so neither side sees the other change.',
  'The vendor changed the limit without notice, and the nightly job began to fail at the last step.',
  'Each page of the report was rendered from source text, never from the previous rendering.',
  'The map was accurate for the roads and wrong about the bridges, which mattered more.',
  'When the disk filled up, the service stopped accepting writes but kept answering reads.',
  'She kept a notebook of every command she ran, and it was more useful than the wiki.',
  'The checksum matched, so the problem had to be in how the file was read, not how it was stored.',
  'A small model summarised the thread and dropped the one number that everybody needed.',
  'The contract said nothing about ordering, and the second implementation took advantage of that.',
  'Memory use grew with the number of open connections, not with the size of the requests.',
  'The fix was one line; finding which line took the better part of a week.',
  'Old screenshots were dropped first, because nobody ever scrolled back to read them.',
  'The queue drained faster after the batch size was halved, which surprised everyone but the author.',
  'Requests that arrived during the deploy were held, not dropped, and replayed once it finished.',
  'The compiler accepted the program and the linter rejected it, and the linter was right.',
  'Nobody owned the shared configuration file, so everybody edited it and nobody reviewed it.',
];

const VERBS = ['load', 'parse', 'merge', 'apply', 'flush', 'count', 'render', 'check', 'split', 'sort'];
const NOUNS = [
  'items',
  'pages',
  'rows',
  'entries',
  'spans',
  'frames',
  'batches',
  'chunks',
  'records',
  'tokens',
];

type Template = (r: Rng, name: string) => string[];

const TEMPLATES: Template[] = [
  (r, name) => [
    `export function ${name}(values: readonly number[], limit = ${r.int(2, 512)}): number {`,
    `  let total = 0;`,
    `  for (const value of values) {`,
    `    if (total + value > limit) break;`,
    `    total += value;`,
    `  }`,
    `  return total;`,
    `}`,
  ],
  (r, name) => [
    `def ${name}(path, retries=${r.int(1, 9)}):`,
    `    """Read a file, retrying on transient errors."""`,
    `    for attempt in range(retries):`,
    `        try:`,
    `            with open(path, "rb") as handle:`,
    `                return handle.read()`,
    `        except OSError as error:`,
    `            last = error`,
    `    raise last`,
  ],
  (r, name) => [
    `async function ${name}(url: string): Promise<Response> {`,
    `  const controller = new AbortController();`,
    `  const timer = setTimeout(() => controller.abort(), ${r.int(1, 30) * 100});`,
    `  try {`,
    `    return await fetch(url, { signal: controller.signal });`,
    `  } finally {`,
    `    clearTimeout(timer);`,
    `  }`,
    `}`,
  ],
  (r, name) => [
    `interface ${name[0]!.toUpperCase()}${name.slice(1)}Options {`,
    `  /** Largest batch sent at once. */`,
    `  batchSize: number; // default ${r.int(8, 256)}`,
    `  retries?: number;`,
    `  onProgress?: (done: number, total: number) => void;`,
    `}`,
  ],
  (r, name) => [
    `SELECT ${r.pick(NOUNS)}.id, count(*) AS n -- ${name}`,
    `  FROM ${r.pick(NOUNS)}`,
    `  JOIN ${r.pick(NOUNS)} ON ${r.pick(NOUNS)}.parent = ${r.pick(NOUNS)}.id`,
    ` WHERE created_at > now() - interval '${r.int(1, 90)} days'`,
    ` GROUP BY 1`,
    ` ORDER BY n DESC`,
    ` LIMIT ${r.int(5, 100)};`,
  ],
  (r, name) => [
    `fn ${name}(input: &[u8]) -> Result<Vec<u8>, Error> {`,
    `    let mut out = Vec::with_capacity(input.len() / ${r.int(2, 8)});`,
    `    for chunk in input.chunks(${r.int(2, 64)}) {`,
    `        out.extend_from_slice(&encode(chunk)?);`,
    `    }`,
    `    Ok(out)`,
    `}`,
  ],
];

/** A paragraph of `min`–`max` sentences, as one line (it soft-wraps on the page). */
export function paragraph(r: Rng, min = 3, max = 8): string[] {
  return Array.from({ length: r.int(min, max) }, () => r.pick(SENTENCES));
}

/** A code snippet of a few lines with a generated function name. */
export function snippet(r: Rng): string[] {
  const noun = r.pick(NOUNS);
  const name = `${r.pick(VERBS)}${noun[0]!.toUpperCase()}${noun.slice(1)}`;
  return r.pick(TEMPLATES)(r, name);
}
