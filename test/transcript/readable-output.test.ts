/**
 * Codex 0.40 function_call_output strings wrap the tool's text in JSON ({"output","metadata"}). The
 * record and the wire keep those bytes; reading (snapshot text, pages) gets the output unwrapped.
 */
import { describe, expect, it } from 'vitest';
import { RENDERER } from '../../src/compaction/policy.js';
import { applySnapshot, SNAPSHOT_OUTPUT } from '../../src/compaction/snapshot.js';
import { formatItems } from '../../src/compaction/text.js';
import { decode, normalize } from '../../src/render/index.js';
import { importTranscript } from '../../src/transcript/import/index.js';
import { readableToolOutput } from '../../src/transcript/readable.js';
import { wireView } from '../../src/views/index.js';
import { fixture, results } from './fixtures.js';

const WRAPPED =
  '{"output":"src/main.rs:31:    let first = lines[0];\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}';

describe('tool output unwrapped for reading', () => {
  it('readableToolOutput unwraps exactly the {output, metadata} object and nothing else', () => {
    expect(readableToolOutput(WRAPPED)).toBe(
      'src/main.rs:31:    let first = lines[0];\n[exit code 0, 0.1 s]',
    );
    expect(readableToolOutput('{"output":"boom","metadata":{"exit_code":101}}')).toBe(
      'boom\n[exit code 101]',
    );
    // Other JSON, extra keys, plain text and broken JSON stay as they are.
    for (const t of [
      '{"output":"x","metadata":{},"extra":1}',
      '{"output":1,"metadata":{}}',
      '{"result":"x","metadata":{}}',
      'plain "metadata" text',
      '{"output":"x","metadata":',
    ])
      expect(readableToolOutput(t)).toBe(t);
  });

  const codex = importTranscript(fixture('codex.jsonl'));
  const wrapped = results(codex.items).filter((r) =>
    r.content.some((p) => p.type === 'text' && p.text.startsWith('{"output"')),
  );

  it('keeps the wrapper in the record and on the wire', () => {
    expect(wrapped.length).toBeGreaterThanOrEqual(3);
    const body = JSON.stringify(wireView('openai-responses', codex.items, { model: 'gpt-5.5' }).body);
    for (const r of wrapped) {
      const raw = (r.content[0] as { text: string }).text;
      expect(body).toContain(JSON.stringify(raw).slice(1, -1)); // the exact string the model got (errors get a prefix)
    }
  });

  it('snapshot text and pages show the output, escapes undone, with one metadata line', async () => {
    const text = formatItems(codex.items);
    expect(text).not.toContain('{"output"');
    expect(text).toContain('\n[exit code 101, 2.4 s]');
    expect(text).toContain('no method named `is_some_and` found for enum `Option`');
    expect(SNAPSHOT_OUTPUT).toBe('readable');
    const first = codex.items.indexOf(wrapped[0]!);
    const run = { from: codex.items[first - 1]!.id, to: wrapped[0]!.id };
    const page = { width: 812, height: 1512, cell: '6x10' as const, scale: 1, tokens: 1566 };
    const now = await applySnapshot(
      codex.items,
      { runs: [run], page, text: 'fields', output: 'readable' },
      RENDERER,
    );
    expect(now.rendered[0]!.text).toContain('[exit code 0, 0.1 s]');
    expect(
      decode(
        now.rendered[0]!.pages.map((p) => p.png),
        { cell: '6x10' },
      ),
    ).toBe(normalize(now.rendered[0]!.text));
    // A record written before the unwrapping (no params.output) replays the verbatim text, byte for byte.
    const old = await applySnapshot(codex.items, { runs: [run], page, text: 'fields' }, RENDERER);
    expect(old.rendered[0]!.text).toContain('{"output"');
    expect(old.rendered[0]!.text).toBe(
      formatItems(codex.items.slice(first - 1, first + 1), { toolOutput: 'verbatim' }),
    );
  });
});
