import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Workspace } from '../store/workspace.js';
import { ID_PATTERN } from '../store/ids.js';
import { sha256Hex } from '../transcript/hash.js';
import { IMPORT_FORMATS, importTranscript, type ImportFormat } from '../transcript/import/index.js';
import { UsageError, type Command } from './command.js';
import { requireWorkspace } from './args.js';

const usage = `usage: glyphfold import FILE --workspace DIR [--conversation ID] [--agent NAME] [--format FORMAT]

Imports a transcript (${IMPORT_FORMATS.join(', ')}; detected unless --format is given) into a
new conversation of the workspace, with its system prompt when it has one (recorded in the log's
header; view and compact --workspace send it). The conversation id defaults to the file name plus a short hash of
its content, so importing the same file twice is refused rather than duplicated.
`;

/** A conversation id from a file name: invalid characters become '-', plus 8 hex of the content hash. */
export function conversationIdFor(file: string, text: string): string {
  const stem = basename(file)
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.-]+/, '')
    .slice(0, 80);
  const id = `${stem || 'import'}-${sha256Hex(text).slice(0, 8)}`;
  if (!ID_PATTERN.test(id)) throw new Error(`internal: derived conversation id ${id} is not valid`);
  return id;
}

export const importCommand: Command = {
  name: 'import',
  summary: 'import a Claude Code / Codex / OpenAI / Anthropic transcript into a workspace',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        workspace: { type: 'string' },
        conversation: { type: 'string' },
        agent: { type: 'string', default: 'main' },
        format: { type: 'string' },
      },
    });
    if (positionals.length !== 1) throw new UsageError(`expected one FILE, found ${positionals.length}`);
    const dir = requireWorkspace(values.workspace);
    if (values.format !== undefined && !IMPORT_FORMATS.includes(values.format as ImportFormat))
      throw new UsageError(`--format expected one of ${IMPORT_FORMATS.join(', ')}, found ${values.format}`);
    const file = resolve(io.cwd, positionals[0]!);
    const text = readFileSync(file, 'utf8');
    const result = importTranscript(text, values.format ? { format: values.format as ImportFormat } : {});
    const conversation = values.conversation ?? conversationIdFor(file, text);
    const ws = Workspace.open(resolve(io.cwd, dir));
    try {
      if (ws.conversation(conversation)?.agents.includes(values.agent))
        throw new Error(
          `conversation ${conversation} agent ${values.agent} already exists in ${dir}; pass another --conversation`,
        );
      // The transcript's system prompt goes into the new log's header: view/compact --workspace send it.
      const history = ws.history(
        conversation,
        values.agent,
        result.system !== undefined ? { system: result.system } : {},
      );
      try {
        history.adopt(result.items);
      } finally {
        history.close();
      }
    } finally {
      ws.close();
    }
    for (const w of result.warnings) io.stderr.write(`warning: ${w}\n`);
    io.stdout.write(
      `imported ${result.items.length} items (${result.format}) into conversation ${conversation} agent ${values.agent}` +
        (result.system !== undefined ? `, with its system prompt (${result.system.length} chars)` : '') +
        '\n',
    );
    return 0;
  },
};
