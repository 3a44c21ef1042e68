/**
 * Writes Claude Code session JSONL lines the way Claude Code does: one line per user message and
 * per assistant content block (blocks of one response share `message.id`), chained by parentUuid,
 * with `toolUseResult` beside tool results. Deterministic: ids and times come from a seeded generator.
 */
import { fakeBase64, fakeId, fakeUuid } from './png.js';

export interface WriterOptions {
  cwd: string;
  sessionId: string;
  start: string;
  model: string;
  version: string;
  gitBranch: string;
}

export class ClaudeWriter {
  readonly lines: object[] = [];
  tip: string | null = null;
  private clock: number;
  private msgId = '';
  private reqId = '';
  private cacheRead = 12000;

  constructor(
    private readonly next: () => number,
    private readonly o: WriterOptions,
  ) {
    this.clock = Date.parse(o.start);
    this.response();
  }

  private time(ms: number): string {
    this.clock += Math.round(ms * (0.5 + this.next()));
    return new Date(this.clock).toISOString();
  }

  private base(parentUuid: string | null, sidechain: boolean): object {
    return {
      parentUuid,
      isSidechain: sidechain,
      userType: 'external',
      cwd: this.o.cwd,
      sessionId: this.o.sessionId,
      version: this.o.version,
      gitBranch: this.o.gitBranch,
    };
  }

  /** Starts a new model response (new message.id and request id). */
  response(): void {
    this.msgId = fakeId(this.next, 'msg_01');
    this.reqId = fakeId(this.next, 'req_011C');
  }

  user(content: unknown, extra: object = {}, delay = 20000): string {
    const uuid = fakeUuid(this.next);
    this.lines.push({
      ...this.base(this.tip, false),
      type: 'user',
      message: { role: 'user', content },
      uuid,
      timestamp: this.time(delay),
      ...extra,
    });
    this.tip = uuid;
    return uuid;
  }

  assistant(block: object, stop: string | null = null, delay = 3000): string {
    const uuid = fakeUuid(this.next);
    const size = JSON.stringify(block).length;
    this.cacheRead += Math.round(size / 4);
    this.lines.push({
      ...this.base(this.tip, false),
      message: {
        id: this.msgId,
        type: 'message',
        role: 'assistant',
        model: this.o.model,
        content: [block],
        stop_reason: stop,
        stop_sequence: null,
        usage: {
          input_tokens: 6,
          cache_creation_input_tokens: Math.round(size / 4) + 300,
          cache_read_input_tokens: this.cacheRead,
          output_tokens: Math.round(size / 4) + 20,
          service_tier: 'standard',
        },
      },
      requestId: this.reqId,
      type: 'assistant',
      uuid,
      timestamp: this.time(delay + size / 20),
    });
    this.tip = uuid;
    return uuid;
  }

  text(text: string, stop: string | null = null): string {
    return this.assistant({ type: 'text', text }, stop);
  }

  thinking(text: string): string {
    return this.assistant({
      type: 'thinking',
      thinking: text,
      signature: fakeBase64(this.next, 340 + Math.floor(this.next() * 200)),
    });
  }

  /** Emits tool_use blocks (several = parallel calls in one response) and returns their ids. */
  tools(...calls: [name: string, input: object][]): string[] {
    return calls.map(([name, input], i) => {
      const id = fakeId(this.next, 'toolu_01');
      this.assistant({ type: 'tool_use', id, name, input }, i === calls.length - 1 ? 'tool_use' : null);
      return id;
    });
  }

  result(
    id: string,
    content: unknown,
    options: { isError?: boolean; toolUseResult?: unknown; delay?: number } = {},
  ): string {
    const block: Record<string, unknown> = { tool_use_id: id, type: 'tool_result', content };
    if (options.isError) block.is_error = true;
    const extra = options.toolUseResult === undefined ? {} : { toolUseResult: options.toolUseResult };
    const uuid = this.user([block], extra, options.delay ?? 1500);
    this.response();
    return uuid;
  }

  jsonl(): string {
    return this.lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  }
}
