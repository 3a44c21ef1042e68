/** `glyphfold inspect`: the local web page over a workspace (src/inspector, docs/inspector.md). */
import { parseArgs } from 'node:util';
import { UsageError, type Command } from './command.js';
import { openStore, requireStore, STORE_OPTIONS, STORE_USAGE } from './store.js';

const usage = `usage: glyphfold inspect (--workspace DIR | --store URL) [--port N] [--host H] [--read-only]

Serves the inspector, a local web page over the store (a folder or a database; it must exist): conversations, the session tree with
branch / fork / checkpoint / rewind, export of any branch, screen vs wire with the token breakdown,
and a compaction preview with each snapshot page beside its text. Runs until SIGINT or SIGTERM.

  --port N      port (default 8790; 0 picks a free one)
  --host H      interface (default 127.0.0.1). Any other address prints a URL with a random access
                token; without it the page answers 401
  --read-only   refuse every change (branch, fork, checkpoint, rewind answer 403)

Prints "inspector on http://HOST:PORT/" on stdout once ready. Over a database, changes made by other
hosts show once the conversation list is reloaded.

${STORE_USAGE}
`;

export const inspectCommand: Command = {
  name: 'inspect',
  summary: 'serve the inspector: a local web page over a store (tree, fork, export, views)',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...STORE_OPTIONS,
        port: { type: 'string', default: '8790' },
        host: { type: 'string', default: '127.0.0.1' },
        'read-only': { type: 'boolean', default: false },
      },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const spec = requireStore(values, io);
    if (!/^\d+$/.test(values.port) || Number(values.port) > 65535)
      throw new UsageError(`--port expected an integer 0-65535, found '${values.port}'`);
    // Loaded here, not at the top: no other command pays for the inspector.
    const { startInspector } = await import('../inspector/index.js');
    // Inspecting must not create a store where there is none (a mistyped path or database).
    const store = await openStore(spec, { readOnly: values['read-only'], mustExist: true });
    const running = await startInspector({
      store,
      port: Number(values.port),
      host: values.host,
      readOnly: values['read-only'],
    });
    io.stdout.write(`inspector on ${running.url}\n`);
    await new Promise<void>((done) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        done();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await running.close();
    io.stderr.write('glyphfold inspect: stopped\n');
    return 0;
  },
};
