/**
 * Structural validators for request bodies, written from each provider's API reference (and the
 * request types the official SDKs generate from it). Each returns a list of problems, each naming the
 * JSON path, what was expected and what was found; [] means the body has the documented shape.
 * The pairing checks reproduce the rules behind each provider's most common 400 (PEERS.md row 1).
 *
 * Sources:
 * - Anthropic: https://platform.claude.com/docs/en/api/messages (MessageCreateParams in @anthropic-ai/sdk)
 * - OpenAI Chat: https://platform.openai.com/docs/api-reference/chat/create (ChatCompletionCreateParams)
 * - OpenAI Responses: https://platform.openai.com/docs/api-reference/responses/create (ResponseCreateParams)
 * - Gemini: https://ai.google.dev/api/generate-content#request-body, https://ai.google.dev/api/caching#Content
 */

// The validators walk untyped JSON and check every field at run time before trusting it, so the
// values are typed `any` here rather than narrowed step by step.
/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = Record<string, any>;
type Problems = string[];

const isObj = (v: any): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const isStr = (v: any): v is string => typeof v === 'string';
const show = (v: any): string => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? s.slice(0, 57) + '...' : s;
};

function expect(p: Problems, ok: boolean, path: string, expected: string, found: any): boolean {
  if (!ok) p.push(`${path}: expected ${expected}, found ${show(found)}`);
  return ok;
}

function onlyKeys(p: Problems, obj: Json, path: string, allowed: string[]): void {
  for (const k of Object.keys(obj)) if (!allowed.includes(k)) p.push(`${path}: unexpected field '${k}'`);
}

function isJsonText(v: any): boolean {
  if (!isStr(v)) return false;
  try {
    JSON.parse(v);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------- Anthropic Messages
const ANTHROPIC_MEDIA = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

function anthropicImage(p: Problems, b: Json, path: string): void {
  onlyKeys(p, b, path, ['type', 'source', 'cache_control']);
  const s = b.source;
  if (!expect(p, isObj(s), `${path}.source`, 'an object', s)) return;
  expect(p, s.type === 'base64', `${path}.source.type`, "'base64'", s.type);
  expect(
    p,
    ANTHROPIC_MEDIA.includes(s.media_type as string),
    `${path}.source.media_type`,
    ANTHROPIC_MEDIA.join('|'),
    s.media_type,
  );
  expect(
    p,
    isStr(s.data) && s.data.length > 0 && !s.data.startsWith('data:'),
    `${path}.source.data`,
    'base64 without a data: prefix',
    s.data,
  );
}

function cacheControl(p: Problems, b: Json, path: string): number {
  if (b.cache_control === undefined) return 0;
  const c = b.cache_control;
  expect(p, isObj(c) && c.type === 'ephemeral', `${path}.cache_control`, "{ type: 'ephemeral' }", c);
  return 1;
}

export function validateAnthropic(body: any): Problems {
  const p: Problems = [];
  if (!expect(p, isObj(body), 'body', 'an object', body)) return p;
  onlyKeys(p, body, 'body', [
    'model',
    'max_tokens',
    'messages',
    'system',
    'tools',
    'tool_choice',
    'temperature',
    'thinking',
    'metadata',
    'stop_sequences',
    'stream',
    'top_k',
    'top_p',
  ]);
  expect(p, isStr(body.model) && body.model !== '', 'body.model', 'a model id', body.model);
  expect(
    p,
    Number.isInteger(body.max_tokens) && (body.max_tokens as number) >= 1,
    'body.max_tokens',
    'an integer >= 1',
    body.max_tokens,
  );
  let breakpoints = 0;
  if (body.system !== undefined) {
    if (Array.isArray(body.system)) {
      (body.system as any[]).forEach((b, i) => {
        const path = `body.system[${i}]`;
        if (!expect(p, isObj(b) && b.type === 'text', path, 'a text block', b)) return;
        expect(p, isStr(b.text) && b.text !== '', `${path}.text`, 'non-empty text', b.text);
        breakpoints += cacheControl(p, b, path);
      });
    } else expect(p, isStr(body.system), 'body.system', 'a string or text blocks', body.system);
  }
  if (
    body.tools !== undefined &&
    expect(p, Array.isArray(body.tools), 'body.tools', 'an array', body.tools)
  ) {
    (body.tools as any[]).forEach((t, i) => {
      const path = `body.tools[${i}]`;
      if (!expect(p, isObj(t), path, 'an object', t)) return;
      onlyKeys(p, t, path, ['name', 'description', 'input_schema', 'cache_control']);
      expect(
        p,
        isStr(t.name) && /^[a-zA-Z0-9_-]{1,128}$/.test(t.name),
        `${path}.name`,
        'a name matching ^[a-zA-Z0-9_-]{1,128}$',
        t.name,
      );
      expect(
        p,
        isObj(t.input_schema) && t.input_schema.type === 'object',
        `${path}.input_schema`,
        "a JSON schema with type 'object'",
        t.input_schema,
      );
      breakpoints += cacheControl(p, t, path);
    });
  }
  const messages = body.messages;
  if (
    !expect(p, Array.isArray(messages) && messages.length > 0, 'body.messages', 'a non-empty array', messages)
  )
    return p;
  let prevCalls: string[] = [];
  (messages as any[]).forEach((m, i) => {
    const path = `body.messages[${i}]`;
    if (!expect(p, isObj(m), path, 'an object', m)) return;
    onlyKeys(p, m, path, ['role', 'content']);
    if (
      !expect(p, m.role === 'user' || m.role === 'assistant', `${path}.role`, "'user' or 'assistant'", m.role)
    )
      return;
    if (i === 0) expect(p, m.role === 'user', `${path}.role`, "'user' (the first message)", m.role);
    else expect(p, m.role !== (messages as Json[])[i - 1]!.role, `${path}.role`, 'alternating roles', m.role);
    const content = isStr(m.content) ? [{ type: 'text', text: m.content }] : m.content;
    if (
      !expect(
        p,
        Array.isArray(content) && content.length > 0,
        `${path}.content`,
        'a string or a non-empty block array',
        m.content,
      )
    )
      return;
    const calls: string[] = [];
    const results: string[] = [];
    let seenNonResult = false;
    (content as any[]).forEach((b, j) => {
      const bp = `${path}.content[${j}]`;
      if (!expect(p, isObj(b) && isStr(b.type), bp, 'a block with a type', b)) return;
      const user = m.role === 'user';
      switch (b.type) {
        case 'text':
          onlyKeys(p, b, bp, ['type', 'text', 'cache_control', 'citations']);
          expect(p, isStr(b.text) && b.text !== '', `${bp}.text`, 'non-empty text', b.text);
          break;
        case 'image':
          expect(p, user, bp, 'images only in user messages', m.role);
          anthropicImage(p, b, bp);
          break;
        case 'thinking':
          expect(p, !user, bp, 'thinking only in assistant messages', m.role);
          onlyKeys(p, b, bp, ['type', 'thinking', 'signature']);
          expect(p, isStr(b.thinking), `${bp}.thinking`, 'a string', b.thinking);
          expect(
            p,
            isStr(b.signature) && b.signature !== '',
            `${bp}.signature`,
            'the signature',
            b.signature,
          );
          break;
        case 'redacted_thinking':
          expect(p, !user, bp, 'redacted_thinking only in assistant messages', m.role);
          onlyKeys(p, b, bp, ['type', 'data']);
          expect(p, isStr(b.data) && b.data !== '', `${bp}.data`, 'the encrypted data', b.data);
          break;
        case 'tool_use':
          expect(p, !user, bp, 'tool_use only in assistant messages', m.role);
          onlyKeys(p, b, bp, ['type', 'id', 'name', 'input', 'cache_control']);
          expect(
            p,
            isStr(b.id) && /^[a-zA-Z0-9_-]+$/.test(b.id),
            `${bp}.id`,
            'an id matching ^[a-zA-Z0-9_-]+$',
            b.id,
          );
          expect(p, isStr(b.name) && b.name !== '', `${bp}.name`, 'a tool name', b.name);
          expect(p, isObj(b.input), `${bp}.input`, 'an object', b.input);
          if (isStr(b.id)) calls.push(b.id);
          break;
        case 'tool_result':
          expect(p, user, bp, 'tool_result only in user messages', m.role);
          expect(p, !seenNonResult, bp, 'tool_result blocks before any other block of the message', b.type);
          onlyKeys(p, b, bp, ['type', 'tool_use_id', 'content', 'is_error', 'cache_control']);
          expect(p, isStr(b.tool_use_id), `${bp}.tool_use_id`, 'a string', b.tool_use_id);
          if (b.is_error !== undefined)
            expect(p, typeof b.is_error === 'boolean', `${bp}.is_error`, 'a boolean', b.is_error);
          if (b.content !== undefined && !isStr(b.content)) {
            if (expect(p, Array.isArray(b.content), `${bp}.content`, 'a string or blocks', b.content))
              (b.content as any[]).forEach((c, k) => {
                const cp = `${bp}.content[${k}]`;
                if (
                  !expect(
                    p,
                    isObj(c) && (c.type === 'text' || c.type === 'image'),
                    cp,
                    'a text or image block',
                    c,
                  )
                )
                  return;
                if (c.type === 'text')
                  expect(p, isStr(c.text) && c.text !== '', `${cp}.text`, 'non-empty text', c.text);
                else anthropicImage(p, c, cp);
              });
          }
          if (isStr(b.tool_use_id)) results.push(b.tool_use_id);
          break;
        default:
          p.push(
            `${bp}.type: expected text|image|thinking|redacted_thinking|tool_use|tool_result, found ${show(b.type)}`,
          );
      }
      if (b.type !== 'tool_result') seenNonResult = true;
      if (b.cache_control !== undefined) {
        expect(
          p,
          b.type !== 'thinking' && b.type !== 'redacted_thinking',
          `${bp}.cache_control`,
          'no cache_control on thinking',
          b.type,
        );
        breakpoints += cacheControl(p, b, bp);
      }
    });
    // The pairing rules behind Anthropic's two most common 400s.
    if (m.role === 'user') {
      let leading = 0;
      while (leading < content.length && (content as Json[])[leading]?.type === 'tool_result') leading++;
      if (prevCalls.length > 0 && leading < prevCalls.length)
        p.push(
          `${path}: Did not find ${prevCalls.length} \`tool_result\` block(s) at the beginning of this message. Messages following \`tool_use\` blocks must begin with a matching number of \`tool_result\` blocks.`,
        );
      const missing = prevCalls.filter((id) => !results.includes(id));
      if (missing.length > 0)
        p.push(
          `${path}: tool_use ids were found without tool_result blocks immediately after: ${missing.join(', ')}`,
        );
      const unexpected = results.filter((id) => !prevCalls.includes(id));
      if (unexpected.length > 0)
        p.push(`${path}: unexpected tool_use_id found in tool_result blocks: ${unexpected.join(', ')}`);
      prevCalls = [];
    } else {
      if (prevCalls.length > 0)
        p.push(
          `${path}: tool_use ids were found without tool_result blocks immediately after: ${prevCalls.join(', ')}`,
        );
      prevCalls = calls;
    }
  });
  if (prevCalls.length > 0)
    p.push(
      `body.messages: tool_use ids were found without tool_result blocks immediately after: ${prevCalls.join(', ')}`,
    );
  expect(p, breakpoints <= 4, 'body', 'at most 4 cache_control breakpoints', breakpoints);
  return p;
}

// ---------------------------------------------------------------- OpenAI Chat Completions
const DETAILS = ['auto', 'low', 'high'];

function chatUserPart(p: Problems, part: any, path: string): void {
  if (!expect(p, isObj(part), path, 'a content part', part)) return;
  if (part.type === 'text') {
    onlyKeys(p, part, path, ['type', 'text']);
    expect(p, isStr(part.text), `${path}.text`, 'a string', part.text);
  } else if (part.type === 'image_url') {
    onlyKeys(p, part, path, ['type', 'image_url']);
    const iu = part.image_url;
    if (!expect(p, isObj(iu), `${path}.image_url`, 'an object', iu)) return;
    expect(
      p,
      isStr(iu.url) && /^(data:image\/(png|jpeg|gif|webp);base64,|https?:)/.test(iu.url),
      `${path}.image_url.url`,
      'a data: URL or http(s) URL',
      iu.url,
    );
    expect(
      p,
      DETAILS.includes(iu.detail as string),
      `${path}.image_url.detail`,
      'an explicit detail (auto|low|high)',
      iu.detail,
    );
  } else p.push(`${path}.type: expected text|image_url, found ${show(part.type)}`);
}

export function validateOpenAIChat(body: any): Problems {
  const p: Problems = [];
  if (!expect(p, isObj(body), 'body', 'an object', body)) return p;
  onlyKeys(p, body, 'body', [
    'model',
    'messages',
    'tools',
    'tool_choice',
    'max_completion_tokens',
    'max_tokens',
    'temperature',
    'stream',
    'reasoning_effort',
    'parallel_tool_calls',
    'store',
  ]);
  expect(p, isStr(body.model) && body.model !== '', 'body.model', 'a model id', body.model);
  if (body.max_completion_tokens !== undefined)
    expect(
      p,
      Number.isInteger(body.max_completion_tokens),
      'body.max_completion_tokens',
      'an integer',
      body.max_completion_tokens,
    );
  if (body.tools !== undefined && expect(p, Array.isArray(body.tools), 'body.tools', 'an array', body.tools))
    (body.tools as any[]).forEach((t, i) => {
      const path = `body.tools[${i}]`;
      if (
        !expect(
          p,
          isObj(t) && t.type === 'function' && isObj(t.function),
          path,
          "{ type: 'function', function }",
          t,
        )
      )
        return;
      const f = t.function as Json;
      onlyKeys(p, f, `${path}.function`, ['name', 'description', 'parameters', 'strict']);
      expect(
        p,
        isStr(f.name) && /^[a-zA-Z0-9_-]{1,64}$/.test(f.name),
        `${path}.function.name`,
        'a name matching ^[a-zA-Z0-9_-]{1,64}$',
        f.name,
      );
    });
  const messages = body.messages;
  if (
    !expect(p, Array.isArray(messages) && messages.length > 0, 'body.messages', 'a non-empty array', messages)
  )
    return p;
  let open: string[] = []; // tool_call ids still waiting for their tool message
  (messages as any[]).forEach((m, i) => {
    const path = `body.messages[${i}]`;
    if (!expect(p, isObj(m), path, 'an object', m)) return;
    if (m.role !== 'tool' && open.length > 0) {
      p.push(
        `${path}: An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}`,
      );
      open = [];
    }
    switch (m.role) {
      case 'system':
      case 'developer':
        onlyKeys(p, m, path, ['role', 'content', 'name']);
        expect(p, isStr(m.content) && m.content !== '', `${path}.content`, 'non-empty text', m.content);
        break;
      case 'user':
        onlyKeys(p, m, path, ['role', 'content', 'name']);
        if (Array.isArray(m.content)) {
          expect(p, m.content.length > 0, `${path}.content`, 'at least one part', m.content);
          (m.content as any[]).forEach((part, j) => chatUserPart(p, part, `${path}.content[${j}]`));
        } else expect(p, isStr(m.content), `${path}.content`, 'a string or parts', m.content);
        break;
      case 'assistant': {
        onlyKeys(p, m, path, ['role', 'content', 'tool_calls', 'name', 'refusal']);
        const calls = m.tool_calls;
        if (calls !== undefined) {
          if (
            expect(
              p,
              Array.isArray(calls) && calls.length > 0,
              `${path}.tool_calls`,
              'a non-empty array',
              calls,
            )
          )
            (calls as any[]).forEach((c, j) => {
              const cp = `${path}.tool_calls[${j}]`;
              if (
                !expect(
                  p,
                  isObj(c) && c.type === 'function' && isObj(c.function),
                  cp,
                  "{ id, type: 'function', function }",
                  c,
                )
              )
                return;
              expect(
                p,
                isStr(c.id) && c.id.length > 0 && c.id.length <= 40,
                `${cp}.id`,
                'a string of at most 40 characters',
                c.id,
              );
              const f = c.function as Json;
              expect(p, isStr(f.name), `${cp}.function.name`, 'a string', f.name);
              expect(p, isJsonText(f.arguments), `${cp}.function.arguments`, 'a JSON string', f.arguments);
              if (isStr(c.id)) open.push(c.id);
            });
          expect(p, m.content === null || isStr(m.content), `${path}.content`, 'a string or null', m.content);
        } else
          expect(
            p,
            isStr(m.content) && m.content !== '',
            `${path}.content`,
            'non-empty text (no tool_calls)',
            m.content,
          );
        break;
      }
      case 'tool': {
        onlyKeys(p, m, path, ['role', 'content', 'tool_call_id']);
        expect(p, isStr(m.content), `${path}.content`, 'a string', m.content);
        const at = open.indexOf(m.tool_call_id as string);
        if (at < 0)
          p.push(
            `${path}: Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (tool_call_id ${show(m.tool_call_id)})`,
          );
        else open.splice(at, 1);
        break;
      }
      default:
        p.push(`${path}.role: expected system|developer|user|assistant|tool, found ${show(m.role)}`);
    }
  });
  if (open.length > 0)
    p.push(
      `body.messages: An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}`,
    );
  return p;
}

// ---------------------------------------------------------------- OpenAI Responses
const RESPONSES_DETAILS = ['auto', 'low', 'high', 'original'];

function responsesInputPart(p: Problems, part: any, path: string): void {
  if (!expect(p, isObj(part), path, 'a content part', part)) return;
  if (part.type === 'input_text') {
    onlyKeys(p, part, path, ['type', 'text']);
    expect(p, isStr(part.text), `${path}.text`, 'a string', part.text);
  } else if (part.type === 'input_image') {
    onlyKeys(p, part, path, ['type', 'image_url', 'file_id', 'detail']);
    expect(
      p,
      isStr(part.image_url) && /^data:image\/(png|jpeg|gif|webp);base64,/.test(part.image_url),
      `${path}.image_url`,
      'a data: URL',
      part.image_url,
    );
    expect(
      p,
      RESPONSES_DETAILS.includes(part.detail as string),
      `${path}.detail`,
      'an explicit detail (auto|low|high|original)',
      part.detail,
    );
  } else p.push(`${path}.type: expected input_text|input_image, found ${show(part.type)}`);
}

export function validateOpenAIResponses(body: any): Problems {
  const p: Problems = [];
  if (!expect(p, isObj(body), 'body', 'an object', body)) return p;
  onlyKeys(p, body, 'body', [
    'model',
    'input',
    'instructions',
    'tools',
    'tool_choice',
    'max_output_tokens',
    'previous_response_id',
    'store',
    'include',
    'reasoning',
    'truncation',
    'stream',
    'temperature',
    'parallel_tool_calls',
  ]);
  expect(p, isStr(body.model) && body.model !== '', 'body.model', 'a model id', body.model);
  if (body.instructions !== undefined)
    expect(p, isStr(body.instructions), 'body.instructions', 'a string', body.instructions);
  if (body.max_output_tokens !== undefined)
    expect(
      p,
      Number.isInteger(body.max_output_tokens) && (body.max_output_tokens as number) >= 16,
      'body.max_output_tokens',
      'an integer >= 16',
      body.max_output_tokens,
    );
  if (body.tools !== undefined && expect(p, Array.isArray(body.tools), 'body.tools', 'an array', body.tools))
    (body.tools as any[]).forEach((t, i) => {
      const path = `body.tools[${i}]`;
      if (!expect(p, isObj(t) && t.type === 'function', path, "{ type: 'function', name, parameters }", t))
        return;
      onlyKeys(p, t, path, ['type', 'name', 'description', 'parameters', 'strict']);
      expect(
        p,
        isStr(t.name) && /^[a-zA-Z0-9_-]{1,64}$/.test(t.name),
        `${path}.name`,
        'a name matching ^[a-zA-Z0-9_-]{1,64}$',
        t.name,
      );
      expect(p, isObj(t.parameters), `${path}.parameters`, 'a JSON schema', t.parameters);
    });
  const input = body.input;
  if (!expect(p, Array.isArray(input), 'body.input', 'an array of input items', input)) return p;
  const chained = body.previous_response_id !== undefined;
  const calls = new Set<string>();
  const outputs = new Set<string>();
  (input as any[]).forEach((it, i) => {
    const path = `body.input[${i}]`;
    if (!expect(p, isObj(it), path, 'an object', it)) return;
    const type = it.type ?? 'message';
    switch (type) {
      case 'message':
        onlyKeys(p, it, path, ['type', 'role', 'content']);
        if (
          !expect(
            p,
            ['user', 'assistant', 'system', 'developer'].includes(it.role as string),
            `${path}.role`,
            'user|assistant|system|developer',
            it.role,
          )
        )
          return;
        if (isStr(it.content)) break;
        if (
          !expect(
            p,
            Array.isArray(it.content) && it.content.length > 0,
            `${path}.content`,
            'a string or non-empty parts',
            it.content,
          )
        )
          return;
        (it.content as any[]).forEach((part, j) => {
          const pp = `${path}.content[${j}]`;
          if (it.role === 'assistant') {
            expect(
              p,
              isObj(part) && part.type === 'output_text' && isStr(part.text),
              pp,
              'an output_text part',
              part,
            );
          } else responsesInputPart(p, part, pp);
        });
        break;
      case 'function_call':
        onlyKeys(p, it, path, ['type', 'call_id', 'name', 'arguments', 'id', 'status']);
        expect(p, isStr(it.call_id) && it.call_id !== '', `${path}.call_id`, 'a call id', it.call_id);
        expect(p, isStr(it.name), `${path}.name`, 'a string', it.name);
        expect(p, isJsonText(it.arguments), `${path}.arguments`, 'a JSON string', it.arguments);
        if (isStr(it.call_id)) calls.add(it.call_id);
        break;
      case 'function_call_output':
        onlyKeys(p, it, path, ['type', 'call_id', 'output', 'id', 'status']);
        expect(p, isStr(it.call_id), `${path}.call_id`, 'a call id', it.call_id);
        if (Array.isArray(it.output))
          (it.output as any[]).forEach((part, j) => responsesInputPart(p, part, `${path}.output[${j}]`));
        else expect(p, isStr(it.output), `${path}.output`, 'a string or input parts', it.output);
        if (isStr(it.call_id)) {
          if (!calls.has(it.call_id) && !chained)
            p.push(`${path}: No tool call found for function call output with call_id ${it.call_id}.`);
          outputs.add(it.call_id);
        }
        break;
      case 'reasoning':
        onlyKeys(p, it, path, ['type', 'id', 'summary', 'encrypted_content', 'content', 'status']);
        // The SDK type marks id required, but the API takes reasoning back without it when
        // encrypted_content is given (Codex does this with store: false).
        if (it.id !== undefined)
          expect(p, isStr(it.id) && it.id !== '', `${path}.id`, 'the reasoning item id', it.id);
        else expect(p, isStr(it.encrypted_content), `${path}`, 'an id or encrypted_content', it);
        if (expect(p, Array.isArray(it.summary), `${path}.summary`, 'an array', it.summary))
          (it.summary as any[]).forEach((s, j) =>
            expect(
              p,
              isObj(s) && s.type === 'summary_text' && isStr(s.text),
              `${path}.summary[${j}]`,
              'a summary_text part',
              s,
            ),
          );
        if (it.encrypted_content !== undefined)
          expect(
            p,
            isStr(it.encrypted_content),
            `${path}.encrypted_content`,
            'a string',
            it.encrypted_content,
          );
        break;
      default:
        p.push(
          `${path}.type: expected message|function_call|function_call_output|reasoning, found ${show(type)}`,
        );
    }
  });
  for (const id of calls)
    if (!outputs.has(id)) p.push(`body.input: No tool output found for function call ${id}.`);
  return p;
}

// ---------------------------------------------------------------- Gemini generateContent
const GEMINI_DATA_FIELDS = [
  'text',
  'inlineData',
  'functionCall',
  'functionResponse',
  'fileData',
  'executableCode',
  'codeExecutionResult',
];

export function validateGemini(body: any): Problems {
  const p: Problems = [];
  if (!expect(p, isObj(body), 'body', 'an object', body)) return p;
  onlyKeys(p, body, 'body', [
    'contents',
    'systemInstruction',
    'tools',
    'toolConfig',
    'generationConfig',
    'safetySettings',
    'cachedContent',
  ]);
  if (body.systemInstruction !== undefined) {
    const si = body.systemInstruction;
    if (
      expect(
        p,
        isObj(si) && Array.isArray(si.parts) && si.parts.length > 0,
        'body.systemInstruction',
        '{ parts: [...] }',
        si,
      )
    )
      (si.parts as any[]).forEach((part, i) =>
        expect(p, isObj(part) && isStr(part.text), `body.systemInstruction.parts[${i}]`, 'a text part', part),
      );
  }
  if (body.tools !== undefined && expect(p, Array.isArray(body.tools), 'body.tools', 'an array', body.tools))
    (body.tools as any[]).forEach((t, i) => {
      const path = `body.tools[${i}]`;
      if (
        !expect(
          p,
          isObj(t) && Array.isArray(t.functionDeclarations),
          path,
          '{ functionDeclarations: [...] }',
          t,
        )
      )
        return;
      (t.functionDeclarations as any[]).forEach((f, j) => {
        const fp = `${path}.functionDeclarations[${j}]`;
        if (!expect(p, isObj(f), fp, 'an object', f)) return;
        onlyKeys(p, f, fp, ['name', 'description', 'parameters', 'parametersJsonSchema', 'response']);
        expect(
          p,
          isStr(f.name) && /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/.test(f.name),
          `${fp}.name`,
          'a valid function name',
          f.name,
        );
      });
    });
  if (body.generationConfig !== undefined) {
    const g = body.generationConfig;
    if (expect(p, isObj(g), 'body.generationConfig', 'an object', g) && g.maxOutputTokens !== undefined)
      expect(
        p,
        Number.isInteger(g.maxOutputTokens),
        'body.generationConfig.maxOutputTokens',
        'an integer',
        g.maxOutputTokens,
      );
  }
  const contents = body.contents;
  if (
    !expect(p, Array.isArray(contents) && contents.length > 0, 'body.contents', 'a non-empty array', contents)
  )
    return p;
  let pendingCalls = 0;
  (contents as any[]).forEach((c, i) => {
    const path = `body.contents[${i}]`;
    if (!expect(p, isObj(c), path, 'a Content object', c)) return;
    onlyKeys(p, c, path, ['role', 'parts']);
    if (!expect(p, c.role === 'user' || c.role === 'model', `${path}.role`, "'user' or 'model'", c.role))
      return;
    if (
      !expect(p, Array.isArray(c.parts) && c.parts.length > 0, `${path}.parts`, 'a non-empty array', c.parts)
    )
      return;
    let calls = 0;
    let responses = 0;
    (c.parts as any[]).forEach((part, j) => {
      const pp = `${path}.parts[${j}]`;
      if (!expect(p, isObj(part), pp, 'a Part object', part)) return;
      onlyKeys(p, part, pp, [...GEMINI_DATA_FIELDS, 'thought', 'thoughtSignature', 'videoMetadata']);
      const data = GEMINI_DATA_FIELDS.filter((k) => part[k] !== undefined);
      expect(
        p,
        data.length === 1,
        pp,
        'exactly one data field (text|inlineData|functionCall|functionResponse|...)',
        data,
      );
      if (part.thought !== undefined)
        expect(p, typeof part.thought === 'boolean', `${pp}.thought`, 'a boolean', part.thought);
      if (part.thoughtSignature !== undefined)
        expect(
          p,
          isStr(part.thoughtSignature) && part.thoughtSignature !== '',
          `${pp}.thoughtSignature`,
          'a base64 string',
          part.thoughtSignature,
        );
      if (part.text !== undefined) expect(p, isStr(part.text), `${pp}.text`, 'a string', part.text);
      if (part.inlineData !== undefined) {
        const d = part.inlineData;
        if (expect(p, isObj(d), `${pp}.inlineData`, '{ mimeType, data }', d)) {
          expect(
            p,
            isStr(d.mimeType) && d.mimeType.includes('/'),
            `${pp}.inlineData.mimeType`,
            'a MIME type',
            d.mimeType,
          );
          expect(p, isStr(d.data) && d.data !== '', `${pp}.inlineData.data`, 'base64 bytes', d.data);
        }
      }
      if (part.functionCall !== undefined) {
        calls++;
        expect(p, c.role === 'model', pp, 'functionCall only in model content', c.role);
        const f = part.functionCall;
        if (expect(p, isObj(f), `${pp}.functionCall`, '{ name, args }', f)) {
          onlyKeys(p, f, `${pp}.functionCall`, ['id', 'name', 'args']);
          expect(p, isStr(f.name), `${pp}.functionCall.name`, 'a string', f.name);
          if (f.args !== undefined) expect(p, isObj(f.args), `${pp}.functionCall.args`, 'an object', f.args);
        }
      }
      if (part.functionResponse !== undefined) {
        responses++;
        expect(p, c.role === 'user', pp, 'functionResponse only in user content', c.role);
        const f = part.functionResponse;
        if (expect(p, isObj(f), `${pp}.functionResponse`, '{ name, response }', f)) {
          onlyKeys(p, f, `${pp}.functionResponse`, [
            'id',
            'name',
            'response',
            'parts',
            'willContinue',
            'scheduling',
          ]);
          expect(p, isStr(f.name), `${pp}.functionResponse.name`, 'a string', f.name);
          expect(
            p,
            isObj(f.response),
            `${pp}.functionResponse.response`,
            'an object (a JSON Struct)',
            f.response,
          );
        }
      }
    });
    // Gemini's pairing rules (its 400 texts).
    if (pendingCalls > 0 && responses !== pendingCalls)
      p.push(
        `${path}: Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn (${pendingCalls} calls, ${responses} responses).`,
      );
    if (pendingCalls === 0 && responses > 0)
      p.push(`${path}: function response parts without a function call turn before them`);
    if (calls > 0 && i > 0 && (contents as Json[])[i - 1]!.role !== 'user')
      p.push(
        `${path}: Please ensure that function call turn comes immediately after a user turn or after a function response turn.`,
      );
    pendingCalls = calls;
  });
  if (pendingCalls > 0)
    p.push(
      `body.contents: the last function call turn has no function response turn (${pendingCalls} calls)`,
    );
  return p;
}

export const VALIDATORS = {
  anthropic: validateAnthropic,
  'openai-chat': validateOpenAIChat,
  'openai-responses': validateOpenAIResponses,
  gemini: validateGemini,
} as const;
