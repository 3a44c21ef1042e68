/**
 * English prose for the renderer benchmarks (bench/, `glyphfold bench --shapes`): sentences from a
 * fixed corpus, shuffled by a seeded generator into paragraphs (one line each, as chat messages carry
 * them) separated by blank lines. Deterministic, so every run and every impl draws the same text.
 */
const SENTENCES = [
  'The agent read the failing test, opened the parser, and found that the tokenizer skipped the last byte of every chunk.',
  'We kept the head of the conversation verbatim, because the instructions a person typed are the ones they expect to be followed.',
  'Compaction rebuilds the request, never the record; the log on disk stays exactly as it was written.',
  'A screenshot costs as many tokens as a page of text, so old screenshots are the first thing to go.',
  'When the provider rejected the request, the harness measured the overflow, recalibrated its estimate, and tried once more.',
  'Each tool call is followed by its result, and nothing is ever placed between the two.',
  'The build took four minutes on the laptop and forty seconds on the server, which surprised nobody.',
  'She asked for a summary of the changes since the last checkpoint, including the files that were touched and the commands that ran.',
  'The snapshot rung needs no model call: it draws the middle of the history onto pages of tiny glyphs.',
  'A deterministic renderer matters, since the prompt cache only helps when the same prefix produces the same bytes.',
  'He rewound the conversation to the checkpoint before the refactor and restored the files from the same moment.',
  'The error message said that a tool result block was missing, which meant an earlier trim had cut the pair in half.',
  'Reading the logs, we saw the same request retried three times with a growing delay between attempts.',
  'The test suite passed locally, failed in continuous integration, and passed again after the cache was cleared.',
  'Nobody remembered why the timeout was set to ninety seconds, so we measured the slowest call and set it to twelve.',
  'The model proposed a patch of eleven lines; the reviewer accepted nine of them and rewrote the other two by hand.',
  'Tokens are not characters, and the ratio between them changes with the language, the code, and the model.',
  'At the end of the day the branch was merged, the issue was closed, and the notes were written down for the next person.',
  'If the context window is almost full, the oldest tool results are elided first, in batches large enough to be worth a cache miss.',
  'The database opened in write-ahead mode, so readers never waited for the writer to finish its transaction.',
  'A careful engineer writes the reason for a trick next to the trick, not in a message that will be lost.',
  'The page held one hundred and thirty rows of text, each three hundred and ninety-two characters wide.',
  'Her question was short: what happened to the test that used to check the empty input?',
  'The benchmark ran each implementation on the same text in the same process, and reported the ratio between them.',
];

/** About `bytes` characters of prose (ASCII, so bytes = characters), always the same for a size. */
export function englishProse(bytes: number): string {
  let seed = 0x9e3779b9;
  const next = (): number => {
    // xorshift32: a fixed, portable sequence.
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const count = 3 + Math.floor(next() * 6);
    const paragraph: string[] = [];
    for (let i = 0; i < count; i++) paragraph.push(SENTENCES[Math.floor(next() * SENTENCES.length)]!);
    const line = paragraph.join(' ');
    parts.push(line);
    size += line.length + 2;
  }
  return parts.join('\n\n');
}
