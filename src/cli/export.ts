/** `glyphfold export`: one branch of an agent's history (any item, not only the tip) in another format. */
import { once } from 'node:events';
import { createWriteStream, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXPORT_FORMATS, exportPath, type ExportFormat } from '../views/export.js';
import { requireStore, STORE_OPTIONS, STORE_USAGE, withStore } from './store.js';
import { UsageError, type Command } from './command.js';

const usage = `usage: glyphfold export (--workspace DIR | --store URL) CONVERSATION [--agent NAME] [--at ITEM]
                        [--format F] [--out FILE]
       glyphfold export (--workspace DIR | --store URL) CONVERSATION [--agent NAME] --format log [--out FILE]

Writes the path root -> ITEM (default: the tip) of one agent's history. Any item names a branch, so
a branch that is not the active one exports without moving the tip. Notes on what the format could
not carry as it was go to stderr.

  --format F   ${EXPORT_FORMATS.join(' | ')} | log (default glyphfold)
               glyphfold, claude-code: JSONL; the others: the provider's messages/input array;
               log: the whole history (every branch, checkpoint and tip move) as stored, byte for byte
  --at ITEM    the item the path ends at (see 'glyphfold tree' for ids)
  --agent A    the agent (default main)
  --out FILE   write there instead of stdout

Moving a history between stores (a folder and a database, either way): '--format log' read back by
'glyphfold import' stores the same lines, byte for byte (ids, branches, checkpoints, hash chain); the
file snapshots of checkpoints are not in it. The glyphfold format carries one path: importing it gives
the items new ids (imp-000001, …), everything else byte for byte.

${STORE_USAGE}
`;

export const exportCommand: Command = {
  name: 'export',
  summary: 'export a branch (root -> any item) as glyphfold/Claude Code JSONL or a provider array',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...STORE_OPTIONS,
        agent: { type: 'string', default: 'main' },
        at: { type: 'string' },
        format: { type: 'string', default: 'glyphfold' },
        out: { type: 'string' },
      },
    });
    const spec = requireStore(values, io);
    if (positionals.length !== 1)
      throw new UsageError(`expected one CONVERSATION, found ${positionals.length} arguments`);
    const format = values.format as ExportFormat | 'log';
    if (format !== 'log' && !EXPORT_FORMATS.includes(format))
      throw new UsageError(
        `--format: expected one of ${EXPORT_FORMATS.join(', ')}, log, found '${values.format}'`,
      );
    if (format === 'log' && values.at !== undefined)
      throw new UsageError('--at names a path; --format log exports the whole history');
    return withStore(spec, { readOnly: true }, async (store) => {
      const id = positionals[0]!;
      const info = await store.conversation(id);
      if (!info)
        throw new Error(
          `no conversation ${id} in ${store.shown}; it has: ${(await store.conversations()).join(', ') || 'none'}`,
        );
      if (!info.agents.includes(values.agent))
        throw new Error(
          `conversation ${id} has no agent '${values.agent}'; it has: ${info.agents.join(', ')}`,
        );
      if (format === 'log') {
        // Streamed: a long history is never held whole.
        let bytes = 0;
        const counted = async function* (chunks: AsyncIterable<string | Uint8Array>) {
          for await (const c of chunks) {
            bytes += typeof c === 'string' ? Buffer.byteLength(c) : c.length;
            yield c;
          }
        };
        const chunks = counted(store.exportLog(id, values.agent));
        if (values.out !== undefined) {
          await pipeline(Readable.from(chunks), createWriteStream(resolve(io.cwd, values.out)));
          io.stderr.write(`wrote the log of ${id} agent ${values.agent} (${bytes} bytes) to ${values.out}\n`);
        } else for await (const c of chunks) if (!io.stdout.write(c)) await once(io.stdout, 'drain');
        return 0;
      }
      const h = await store.read(id, values.agent);
      let path;
      try {
        path = h.pathTo(values.at ?? h.tip);
      } finally {
        await h.close();
      }
      const out = exportPath(path, format, { sessionId: id });
      for (const n of out.notes) io.stderr.write(`note: ${n}\n`);
      if (values.out !== undefined) {
        writeFileSync(resolve(io.cwd, values.out), out.text);
        io.stderr.write(`wrote ${path.length} items as ${format} to ${values.out}\n`);
      } else io.stdout.write(out.text);
      return 0;
    });
  },
};
