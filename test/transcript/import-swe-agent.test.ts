import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat, importTranscript } from '../../src/transcript/import/index.js';
import { FIXTURES, calls, results } from './fixtures.js';

const real = (name: string): string => readFileSync(join(FIXTURES, 'real', name), 'utf8');

describe('swe-agent importer (.traj)', () => {
  it('imports a function-calling history: system, the task, every action as a paired call', () => {
    const text = real('swe-agent-function-calling-simple.traj');
    expect(detectFormat(text)).toBe('swe-agent');
    const r = importTranscript(text);
    expect(r.system).toMatch(/^SETTING: You are an autonomous programmer/);
    expect(r.items[0]).toMatchObject({ kind: 'message', author: 'person' });
    expect((r.items[0] as { text: string }).text).toMatch(/^We're currently solving the following issue/);
    expect(calls(r.items).map((c) => c.name)).toEqual(['find_file', 'open', 'edit', 'bash', 'submit']);
    expect(calls(r.items)[2]!.input).toEqual({
      search: 'def division(a: float, b: float) -> float',
      replace: 'def division(a: float, b: float) -> float:',
    });
    expect(results(r.items).map((x) => x.name)).toEqual(['find_file', 'open', 'edit', 'bash', 'submit']);
    expect(results(r.items)[0]!.content[0]).toMatchObject({
      text: expect.stringMatching(/^Found 1 matches/),
    });
    expect(r.warnings).toEqual([]);
  });

  it('imports an older history (actions in text, observations as user messages) and names what it left out', () => {
    const r = importTranscript(real('swe-agent-pydicom-1458.traj'));
    expect(r.format).toBe('swe-agent');
    const by = (kind: string, author: string) =>
      r.items.filter((i) => i.kind === kind && i.author === author);
    expect(by('message', 'person')).toHaveLength(1);
    expect(by('message', 'model')).toHaveLength(12);
    const context = by('context', 'surface') as { source?: string }[];
    expect(context.map((c) => c.source)).toEqual(['demonstration', ...Array<string>(11).fill('observation')]);
    expect(r.warnings).toEqual([
      "1 demonstration entries (is_demo) imported as context, not as the model's or the person's words",
      'trajectory: 12 steps (action, observation, thought, state) not imported: they repeat the history per step',
      'environment, info not imported (run metadata, not conversation)',
    ]);
  });

  it('keeps thinking blocks with their signatures and skips other agents, saying so', () => {
    const traj = {
      history: [
        { role: 'system', content: 'sys', agent: 'main', message_type: 'system_prompt' },
        {
          role: 'user',
          content: [{ type: 'text', text: 'fix it', cache_control: { type: 'ephemeral' } }],
          agent: 'main',
          message_type: 'observation',
        },
        {
          role: 'assistant',
          content: 'looking',
          agent: 'main',
          message_type: 'action',
          thinking_blocks: [{ type: 'thinking', thinking: 'hmm', signature: 'sig' }],
          tool_calls: [
            { id: 't1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } },
          ],
        },
        { role: 'tool', content: 'a.py', agent: 'main', message_type: 'observation', tool_call_ids: ['t1'] },
        { role: 'user', content: 'review this', agent: 'reviewer', message_type: 'observation' },
      ],
      trajectory: [],
    };
    const r = importTranscript(traj);
    expect(r.format).toBe('swe-agent');
    expect(r.items.map((i) => i.kind)).toEqual([
      'message',
      'reasoning',
      'message',
      'tool_call',
      'tool_result',
    ]);
    expect(r.items[1]).toMatchObject({ text: 'hmm', signature: 'sig', provider: 'anthropic' });
    expect(r.warnings).toContain(
      '1 history entries of agents other than "main" not imported (import them as their own history)',
    );
  });

  it('refuses an unknown content part and a .traj without history, naming what it found', () => {
    const bad = {
      history: [{ role: 'user', content: [{ type: 'image_url', image_url: 'x' }], agent: 'main' }],
    };
    expect(() => importTranscript(bad, { format: 'swe-agent' })).toThrow(
      'swe-agent: history[0].content[0]: unknown content part type "image_url"; expected text',
    );
    const noHistory = { trajectory: [{ action: 'ls', observation: 'a', thought: 't' }], history: [] };
    expect(() => importTranscript(noHistory)).toThrow(
      /swe-agent: the \.traj holds no history to import .*trajectory has 1 steps/,
    );
  });
});
