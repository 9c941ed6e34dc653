/**
 * The `mcp-actors` command (bin/mcp-actors.js runs the compiled file with plain node).
 *
 * Exit codes: 0 after Ctrl-C or --help, 1 when the server cannot be watched
 * or the connection ends on its own, 2 for a bad command line. Every failure
 * is one line on stderr.
 */
import { messageOf } from '../../machines/errors.ts';
import { parseCommandLine, USAGE, UsageError } from './args.ts';
import { wantsColour } from './colour-choice.ts';
import { describeCause, serializeError } from './error-report.ts';
import { packageVersion } from './package-version.ts';
import { printable, printableJson } from './printable.ts';
import { readHostConfig } from './host-config.ts';
import type { Renderer } from './timeline.ts';
import type { Watch } from './watch.ts';

const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

const exit = (code: number): void => {
  // Let buffered output reach a pipe before the process goes.
  process.stdout.write('', () => process.exit(code));
};

/** One line of a message to stderr; what a server put in it is shown, not acted on by the terminal (printable.ts). */
const oneLine = (message: string): string => printable(message.replace(/\s*\n\s*/g, ' '));

const fail = (message: string, code: number): void => {
  process.stderr.write(`mcp-actors: ${oneLine(message)}\n`);
  exit(code);
};

/** Set once the command line is read: with --json, a failure is also one JSON line on stdout. */
let jsonOutput = false;

async function main(argv: string[]): Promise<void> {
  const command = parseCommandLine(argv);
  if (command.command === 'help' || command.command === 'version') {
    process.stdout.write(`${command.command === 'help' ? USAGE : packageVersion()}\n`);
    return exit(0);
  }
  jsonOutput = command.json;
  let watch: Watch | undefined;
  let interrupted = false;
  const interrupt = () => {
    // Before the watch starts nothing is open; a second Ctrl-C does not wait for the first one's close.
    if (!watch || interrupted) return exit(0);
    interrupted = true;
    watch.stop().catch((error: unknown) => process.stderr.write(`mcp-actors: while closing: ${oneLine(messageOf(error))}\n`));
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  // A reader that went away (`| head -1`) ends the watch as Ctrl-C does: what it started is stopped (exiting at once
  // would leave behind a server that outlives its stdin), the lines still to come go nowhere, and no stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') return;
    if (!watch) return exit(0);
    if (!interrupted) interrupt();
  });

  const { target } = command;
  // The config is read before anything starts, so a mistake in it is one line and nothing to clean up.
  const servers = target.type === 'config' ? readHostConfig(target.file, target.servers, process.env) : undefined;
  // A lone server of the config that cannot be watched is just that server's one-line error.
  const lone = servers?.length === 1 ? servers[0]!.target : undefined;
  if (lone?.type === 'unsupported') throw lone.error;
  if (servers && servers.length > 1 && command.inspect) throw new UsageError('--inspect watches one server; pick it with --server NAME');

  // Loaded only for a watch that starts: --help, --version and a bad command line or config do not pay for the
  // client, its machines and the renderers.
  const [{ humanRenderer }, { jsonRenderer }, { startWatch }, { startWatchSet }] = await Promise.all([
    import('./render-human.ts'),
    import('./render-json.ts'),
    import('./watch.ts'),
    import('./watch-set.ts'),
  ]);
  const write = (text: string) => void process.stdout.write(text);
  const colour = wantsColour(process.env, process.stdout.isTTY === true);
  const renderer = (serverName?: string): Renderer =>
    command.json ? jsonRenderer(write, undefined, serverName) : humanRenderer(write, { colour, ...(serverName !== undefined ? { serverName } : {}) });

  // The handle exists before anything connects: a Ctrl-C during the connect stops what it started (a stdio server).
  watch =
    target.type !== 'config'
      ? startWatch(command, target, renderer())
      : lone
        ? startWatch(command, lone, renderer(servers![0]!.name))
        : startWatchSet(command, servers!, renderer, (name, error) => process.stderr.write(`mcp-actors: [${oneLine(name)}] ${oneLine(describeFailure(error))}\n`));
  exit(await watch.done);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (jsonOutput) process.stdout.write(`${printableJson(JSON.stringify({ time: new Date().toISOString(), type: 'error', error: serializeError(error) }))}\n`);
  if (error instanceof UsageError) fail(`${error.message} (see mcp-actors --help)`, EXIT_USAGE);
  else fail(describeFailure(error), EXIT_FAILURE);
});

/** Our own errors say what failed; the innermost system error (ECONNREFUSED …) says why, so both are shown once. */
function describeFailure(error: unknown): string {
  const message = messageOf(error);
  const innermost = describeCause(error);
  return message.includes(innermost) ? message : `${message} (${innermost})`;
}
