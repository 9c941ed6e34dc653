/**
 * The command line of `mcp-actors`, parsed with node:util parseArgs into a
 * typed command. Anything wrong is a UsageError whose message is one line.
 *
 *   mcp-actors watch [options] [URL]
 *   mcp-actors watch [options] -- COMMAND [ARGS...]
 */
import { parseArgs } from 'node:util';
// From the policy's own module, not the connection machine: --help does not load xstate.
import { DEFAULT_BACKOFF } from '../../machines/backoff.ts';
import { isResourceUri } from '../protocol/filter.ts';
import { McpActorsError } from '../protocol/errors.ts';
import type { EraPreference } from '../protocol/versions.ts';
import { DEFAULT_DEMO_INTERVAL_MS, DEFAULT_DEMO_RESTART_AFTER_MS } from '../demo/demo-defaults.ts';

export class UsageError extends McpActorsError {
  override readonly name = 'UsageError';
  readonly code = 'usage';
}

export type WatchTarget =
  /** No target: the bundled demo server, run as a stdio child. */
  | { type: 'demo' }
  | { type: 'http'; url: URL; headers?: Record<string, string> }
  | { type: 'stdio'; command: string; args: string[]; env?: Record<string, string>; cwd?: string }
  /** The servers of a host's `mcpServers` config (all, or those named by --server). */
  | { type: 'config'; file: string; servers: string[] };

/** One server to watch: what a --config target resolves into. */
export type ServerTarget = Exclude<WatchTarget, { type: 'config' }>;

/** What the watcher listens for; `undefined` lists mean "whatever the server advertises". */
export interface InterestSelection {
  /** True when none of --tools/--prompts/--resources/--uri was given. */
  everything: boolean;
  tools: boolean;
  prompts: boolean;
  resources: boolean;
  uris: string[];
}

export interface WatchCommand {
  command: 'watch';
  target: WatchTarget;
  era: EraPreference;
  selection: InterestSelection;
  json: boolean;
  /** `--inspect`: where the local inspector page listens (loopback unless `--inspect-host` says otherwise). */
  inspect: { host: string; port: number } | undefined;
  /** Reconnect attempts after a lost connection before giving up; Infinity (the default) never gives up. */
  maxAttempts: number;
  /** Print what the server offers (era, capabilities, lists) and exit instead of watching. */
  once: boolean;
}

/** What the command line asks for: a watch, the usage text, or the version. */
export type CliCommand = WatchCommand | { command: 'help' } | { command: 'version' };

/** With no selection, how many listed resources have their contents watched (when the server supports resources/subscribe). */
export const DEFAULT_WATCHED_URIS = 3;

/** The inspector's default port. */
export const DEFAULT_INSPECT_PORT = 8080;
/** Loopback by default: the page shows every actor's states and events, which is nobody else's business. */
export const DEFAULT_INSPECT_HOST = '127.0.0.1';

export const USAGE = `Usage:
  mcp-actors watch [options] [URL]              watch a Streamable HTTP server (no URL: the bundled demo)
  mcp-actors watch [options] -- COMMAND [ARGS]  watch a stdio server
  mcp-actors watch [options] --config FILE      watch the servers of an MCP host's config ("mcpServers")

Options:
  --era auto|legacy|modern  protocol era to negotiate (default auto)
  --tools                   watch the tools list
  --prompts                 watch the prompts list
  --resources               watch the resources list
  --uri URI                 watch one resource's contents (repeatable)
                            (none of the four: every list the server advertises, plus the
                            first ${DEFAULT_WATCHED_URIS} resources' contents when it supports resources/subscribe)
  --config FILE             a JSON file with an "mcpServers" map, as MCP hosts keep (\${VAR} expanded)
  --server NAME             with --config: only this server (repeatable; default: all of them)
  --json                    one JSON object per line instead of the timeline
  --once                    print the era, capabilities and lists, then exit
  --max-attempts N          give up after N reconnect attempts (default: retry forever,
                            ${DEFAULT_BACKOFF.baseDelayMs} ms doubling up to ${DEFAULT_BACKOFF.maxDelayMs / 1000} s, jittered)
  --inspect                 serve a page of the live actors' statecharts (works offline),
                            and a relay to the hosted Stately inspector at /stately
  --inspect-port PORT       the inspector's port (default ${DEFAULT_INSPECT_PORT}; 0: any free port)
  --inspect-host HOST       the inspector's address (default ${DEFAULT_INSPECT_HOST}; other than
                            loopback, anyone who can reach it sees the actors' states and events)
  -v, --version             the version of mcp-actors
  -h, --help                this text

Environment:
  NO_COLOR=1                no colours, even on a terminal
  FORCE_COLOR=1             colours even when the output is not a terminal (FORCE_COLOR=0: none)

The demo (watch with no target):
  MCP_ACTORS_DEMO_INTERVAL_MS        time between its changes (default ${DEFAULT_DEMO_INTERVAL_MS})
  MCP_ACTORS_DEMO_RESTART_AFTER_MS   when its first process crashes, once (default ${DEFAULT_DEMO_RESTART_AFTER_MS}; 0: never)

Exit status: 0 after Ctrl-C or --once, 1 when the server cannot be watched or the connection ends, 2 for a bad command line.
(Through npm start or npx, Ctrl-C also reaches npm's shell, and npm then reports 130: see the README.)`;

const ERAS: readonly EraPreference[] = ['auto', 'legacy', 'modern'];

export function parseCommandLine(argv: readonly string[]): CliCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      tokens: true,
      options: {
        era: { type: 'string', default: 'auto' },
        tools: { type: 'boolean', default: false },
        prompts: { type: 'boolean', default: false },
        resources: { type: 'boolean', default: false },
        uri: { type: 'string', multiple: true, default: [] },
        json: { type: 'boolean', default: false },
        once: { type: 'boolean', default: false },
        config: { type: 'string' },
        server: { type: 'string', multiple: true, default: [] },
        'max-attempts': { type: 'string' },
        inspect: { type: 'boolean', default: false },
        'inspect-port': { type: 'string' },
        'inspect-host': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'v', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]!);
  }
  const { values, tokens } = parsed;
  if (values.help) return { command: 'help' };
  if (values.version) return { command: 'version' };

  const terminator = tokens.findIndex((token) => token.kind === 'option-terminator');
  const before: string[] = [];
  const after: string[] = [];
  for (const [index, token] of tokens.entries()) {
    if (token.kind !== 'positional') continue;
    (terminator !== -1 && index > terminator ? after : before).push(token.value);
  }
  const [command, ...rest] = before;
  if (command === undefined) return { command: 'help' };
  if (command !== 'watch') throw new UsageError(`unknown command "${command}" (try: mcp-actors watch)`);

  if (!ERAS.includes(values.era as EraPreference)) throw new UsageError(`--era must be auto, legacy or modern, not "${values.era}"`);
  const badUri = values.uri.find((uri) => !isResourceUri(uri));
  if (badUri !== undefined) throw new UsageError(`--uri needs a resource URI such as file:///notes.txt, not "${badUri}"`);
  const selection: InterestSelection = {
    everything: !values.tools && !values.prompts && !values.resources && values.uri.length === 0,
    tools: values.tools,
    prompts: values.prompts,
    resources: values.resources,
    uris: values.uri,
  };
  return {
    command: 'watch',
    target: values.config !== undefined ? configTarget(values.config, values.server, rest, terminator !== -1) : parseTarget(rest, after, terminator !== -1, values.server),
    era: values.era as EraPreference,
    selection,
    json: values.json,
    inspect:
      values.inspect || values['inspect-port'] !== undefined || values['inspect-host'] !== undefined
        ? { host: parseHost(values['inspect-host']), port: parsePort(values['inspect-port']) }
        : undefined,
    maxAttempts: parseMaxAttempts(values['max-attempts']),
    once: values.once,
  };
}

function configTarget(file: string, servers: string[], positionals: string[], sawTerminator: boolean): WatchTarget {
  if (positionals.length > 0 || sawTerminator) throw new UsageError('give either --config or a URL or a command, not both');
  return { type: 'config', file, servers };
}

function parseTarget(positionals: string[], command: string[], sawTerminator: boolean, servers: string[]): WatchTarget {
  if (servers.length > 0) throw new UsageError('--server names a server of --config FILE');
  if (sawTerminator) {
    if (positionals.length > 0) throw new UsageError('give either a URL or a command after --, not both');
    const [program, ...args] = command;
    if (program === undefined) throw new UsageError('no command after --');
    return { type: 'stdio', command: program, args };
  }
  if (positionals.length > 1) throw new UsageError(`one URL at most; to run a command, put it after --`);
  const [text] = positionals;
  if (text === undefined) return { type: 'demo' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`bad URL "${text}" (to run a command, put it after --)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`bad URL "${text}": only http: and https: are supported`);
  return { type: 'http', url };
}

function parseMaxAttempts(text: string | undefined): number {
  if (text === undefined) return Infinity;
  const attempts = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(attempts)) throw new UsageError(`--max-attempts must be a whole number, not "${text}"`);
  return attempts;
}

function parsePort(text: string | undefined): number {
  if (text === undefined) return DEFAULT_INSPECT_PORT;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) throw new UsageError(`--inspect-port must be a port number, not "${text}"`);
  return port;
}

function parseHost(text: string | undefined): string {
  if (text === undefined) return DEFAULT_INSPECT_HOST;
  // A bracketed IPv6 literal as in a URL is accepted too; node:http wants it bare.
  const host = text.replace(/^\[(.*)\]$/, '$1');
  if (host === '' || /[\s/]/.test(host)) throw new UsageError(`--inspect-host must be a host name or address, not "${text}"`);
  return host;
}
