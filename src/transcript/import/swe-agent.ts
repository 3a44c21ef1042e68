/**
 * SWE-agent `.traj` files: one JSON object with `history` (what the model was sent: role, content,
 * agent, message_type, `is_demo`, and in function-calling versions `tool_calls` / `tool_call_ids`,
 * `thinking_blocks`) and `trajectory` (per step: action, observation, thought, state). The history is
 * the record; the trajectory repeats it per step, so it and `info` / `environment` / `replay_config`
 * are named in the warnings as not imported.
 *
 * Nobody types into SWE-agent: the first user message (the task, the issue text in its template) is
 * filed as the person's, later user messages are observations the harness wrote (surface context),
 * demonstrations (`is_demo`) are context too.
 */
import type { NewItem } from '../items.js';
import {
  CallNames,
  PathBuilder,
  isRecord,
  parseArguments,
  typeName,
  type ImportOptions,
  type ImportResult,
} from './build.js';

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** True when `input` is a `.traj` object: a `history` of role/content entries (or a `trajectory` of steps). */
export function looksSweAgent(input: unknown): boolean {
  if (!isRecord(input)) return false;
  const h = input.history;
  if (Array.isArray(h) && h.length > 0)
    return h.every((m) => isRecord(m) && typeof m.role === 'string' && ROLES.has(m.role) && 'content' in m);
  const t = input.trajectory;
  return (
    Array.isArray(t) && t.length > 0 && t.every((s) => isRecord(s) && 'action' in s && 'observation' in s)
  );
}

/** Text of a history entry's content: a string or a list of text parts (with cache_control). */
function contentText(content: unknown, where: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    throw new Error(
      `swe-agent: ${where}: content must be a string or a list of parts, found ${typeName(content)}`,
    );
  return content
    .map((p, k) => {
      if (isRecord(p) && p.type === 'text' && typeof p.text === 'string') return p.text;
      throw new Error(
        `swe-agent: ${where}.content[${k}]: unknown content part type ${isRecord(p) ? JSON.stringify(p.type) : typeName(p)}; expected text`,
      );
    })
    .join('\n');
}

/** Imports a SWE-agent `.traj` object (its `history`). */
export function importSweAgent(input: unknown, options: ImportOptions = {}): ImportResult {
  if (!isRecord(input))
    throw new Error(
      `swe-agent: expected a .traj object { history, trajectory, info }, found ${typeName(input)}`,
    );
  const b = new PathBuilder('swe-agent');
  const history = input.history;
  const steps = Array.isArray(input.trajectory) ? input.trajectory.length : 0;
  if (!Array.isArray(history) || history.length === 0)
    throw new Error(
      `swe-agent: the .traj holds no history to import (history is ${typeName(history)}${Array.isArray(history) ? ' of 0' : ''}; trajectory has ${steps} steps, which hold outputs, not what the model was sent)`,
    );
  // History entries of other agents (a reviewer, a retry loop's attempts) are separate conversations.
  const main = history.find((m) => isRecord(m) && typeof m.agent === 'string')?.agent as string | undefined;
  const names = new CallNames();
  let sawModel = false;
  let demos = 0;
  let other = 0;
  history.forEach((m, i) => {
    const where = `history[${i}]`;
    if (!isRecord(m)) throw new Error(`swe-agent: ${where}: expected an entry object, found ${typeName(m)}`);
    if (main !== undefined && typeof m.agent === 'string' && m.agent !== main) return void other++;
    b.nextGroup();
    const text = contentText(m.content, where);
    const demo = m.is_demo === true || m.is_demo === 'True' || m.message_type === 'demonstration';
    if (demo && m.role !== 'system') {
      demos++;
      b.push({ kind: 'context', author: 'surface', text, source: 'demonstration' });
      return;
    }
    switch (m.role) {
      case 'system':
        b.system(text);
        return;
      case 'user':
        if (!sawModel && text !== '') b.push({ kind: 'message', author: 'person', text });
        else if (text !== '') b.push({ kind: 'context', author: 'surface', text, source: 'observation' });
        return;
      case 'assistant': {
        sawModel = true;
        if (Array.isArray(m.thinking_blocks)) {
          for (const t of m.thinking_blocks) {
            if (!isRecord(t)) continue;
            const item: NewItem & { kind: 'reasoning' } = {
              kind: 'reasoning',
              author: 'model',
              text: String(t.thinking ?? ''),
              provider: 'anthropic',
            };
            if (typeof t.signature === 'string' && t.signature !== '') item.signature = t.signature;
            if (t.type === 'redacted_thinking') {
              item.text = '';
              item.encrypted = String(t.data ?? '');
            }
            b.push(item);
          }
        }
        if (text !== '') b.push({ kind: 'message', author: 'model', text });
        if (Array.isArray(m.tool_calls)) {
          m.tool_calls.forEach((c, k) => {
            const fn = isRecord(c) && isRecord(c.function) ? c.function : {};
            const callId = isRecord(c) ? String(c.id ?? '') : '';
            const name = String(fn.name ?? '');
            names.set(callId, name);
            b.push({
              kind: 'tool_call',
              author: 'model',
              callId,
              name,
              input: parseArguments(fn.arguments, `${where}.tool_calls[${k}]`, b),
            });
          });
        }
        return;
      }
      case 'tool': {
        const ids = Array.isArray(m.tool_call_ids) ? m.tool_call_ids.map(String) : [];
        if (ids.length === 0) b.warn(`${where}: tool entry without tool_call_ids (orphan kept)`);
        if (ids.length > 1)
          b.warn(
            `${where}: one observation answers ${ids.length} calls (${ids.join(', ')}); given to the first, the others get an empty result`,
          );
        (ids.length > 0 ? ids : ['']).forEach((callId, k) => {
          b.push({
            kind: 'tool_result',
            author: 'machinery',
            callId,
            name: names.get(callId),
            content: [{ type: 'text', text: k === 0 ? text : '' }],
          });
        });
        return;
      }
      default:
        throw new Error(
          `swe-agent: ${where}: expected role system|user|assistant|tool, found ${JSON.stringify(m.role)}`,
        );
    }
  });
  if (demos > 0)
    b.warn(
      `${demos} demonstration entries (is_demo) imported as context, not as the model's or the person's words`,
    );
  if (other > 0)
    b.warn(
      `${other} history entries of agents other than "${main}" not imported (import them as their own history)`,
    );
  if (steps > 0)
    b.warn(
      `trajectory: ${steps} steps (action, observation, thought, state) not imported: they repeat the history per step`,
    );
  const unused = Object.keys(input).filter((k) => k !== 'history' && k !== 'trajectory');
  if (unused.length > 0) b.warn(`${unused.join(', ')} not imported (run metadata, not conversation)`);
  return b.finish('swe-agent', options);
}
