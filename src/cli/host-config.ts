/**
 * `watch --config FILE`: the `mcpServers` map MCP hosts already keep
 * (Claude Desktop, Claude Code's .mcp.json, Cursor, VS Code's `servers`
 * aside): stdio entries with `command`, `args`, `env`, `cwd`; HTTP entries
 * with `url` and `headers`. `${VAR}` and `${VAR:-default}` in any string are
 * expanded from the environment as those hosts do; a variable that is unset
 * and has no default is an error naming it, not an empty string. Entries
 * marked `"disabled": true` are left out unless named with --server.
 * A `"type"` other than `stdio`, `http` or `streamable-http` (notably `sse`,
 * the 2024-11-05 HTTP+SSE transport, which this client does not speak) makes
 * that one entry a per-server failure: the others are still watched.
 */
import { readFileSync } from 'node:fs';
import { McpActorsError } from '../protocol/errors.ts';
import type { ServerTarget } from './args.ts';
import { describeCause } from './error-report.ts';

/** The config file cannot be read, is not JSON, or an entry is not a server a host could start. */
export class ConfigError extends McpActorsError {
  override readonly name = 'ConfigError';
  readonly code = 'config';
}

/** An entry whose transport this client does not speak: reported under its name while the others are watched. */
export interface UnsupportedEntry {
  type: 'unsupported';
  error: ConfigError;
}

/** One server of the config, by the name the file gives it. */
export interface NamedTarget {
  name: string;
  target: Extract<ServerTarget, { type: 'http' | 'stdio' }> | UnsupportedEntry;
}

/** Entry `type` values that name the transports this client speaks (hosts write Streamable HTTP as `http` or `streamable-http`). */
const KNOWN_TYPES = ['stdio', 'http', 'streamable-http'] as const;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Reads FILE and returns the servers it names (all, or those in `only`, in the file's order). */
export function readHostConfig(file: string, only: readonly string[], env: NodeJS.ProcessEnv): NamedTarget[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    // `ENOENT missing.json`, the way every failure names its system error, so the one-line report does not repeat it.
    throw new ConfigError(`cannot read config ${file}: ${describeCause(cause)}`, { cause });
  }
  let parsed: Json;
  try {
    // Editors on Windows (Notepad, PowerShell's Out-File) start the file with a byte order mark, which JSON.parse refuses.
    parsed = JSON.parse(text.replace(/^\uFEFF/, '')) as Json;
  } catch (cause) {
    throw new ConfigError(`config ${file} is not JSON: ${(cause as Error).message}`, { cause });
  }
  const servers = isObject(parsed) ? parsed.mcpServers : undefined;
  if (!isObject(servers)) throw new ConfigError(`config ${file} has no "mcpServers" object`);
  const names = Object.keys(servers);
  const unknown = only.filter((name) => !names.includes(name));
  if (unknown.length > 0) throw new ConfigError(`config ${file} has no server ${unknown.map((name) => `"${name}"`).join(', ')} (it has: ${names.join(', ') || 'none'})`);
  // A server the host has switched off is not watched unless asked for by name (then it is an error, below).
  const chosen = only.length > 0 ? names.filter((name) => only.includes(name)) : names.filter((name) => !isDisabled(servers[name]));
  if (chosen.length === 0) throw new ConfigError(`config ${file} lists no servers${names.length > 0 ? ' that are not disabled' : ''}`);
  return chosen.map((name): NamedTarget => {
    const entry = expand(servers[name]!, env, `${file}: server "${name}"`);
    const unsupported = unsupportedType(name, entry);
    return { name, target: unsupported ? { type: 'unsupported', error: unsupported } : targetOf(name, entry) };
  });
}

/**
 * An entry whose `type` names a transport this client does not speak. `sse` is refused rather than tried as
 * Streamable HTTP: its url is the old GET-only event stream, so a POST there fails with a status that hides the cause.
 */
function unsupportedType(name: string, entry: Json): ConfigError | undefined {
  if (!isObject(entry) || entry.type === undefined) return undefined;
  const type = entry.type;
  if (type === 'sse') return new ConfigError(`server "${name}": transport type "sse" (the 2024-11-05 HTTP+SSE transport) is not supported; only stdio and Streamable HTTP ("http") are`);
  if (typeof type === 'string' && (KNOWN_TYPES as readonly string[]).includes(type)) return undefined;
  return new ConfigError(`server "${name}": unknown transport type ${JSON.stringify(type)} (expected one of: ${KNOWN_TYPES.join(', ')})`);
}

function targetOf(name: string, entry: Json): Extract<ServerTarget, { type: 'http' | 'stdio' }> {
  const where = `server "${name}"`;
  if (!isObject(entry)) throw new ConfigError(`${where} is not an object`);
  if (entry.disabled === true) throw new ConfigError(`${where} is disabled in the config; leave it out or pick others with --server`);
  if (typeof entry.url === 'string') {
    let url: URL;
    try {
      url = new URL(entry.url);
    } catch {
      throw new ConfigError(`${where}: bad url "${entry.url}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${where}: only http: and https: urls are supported, not "${entry.url}"`);
    return { type: 'http', url, ...optional('headers', stringMap(entry.headers, `${where}: headers`)) };
  }
  if (typeof entry.command !== 'string' || entry.command === '') throw new ConfigError(`${where} has neither a "command" nor a "url"`);
  const args = entry.args ?? [];
  if (!Array.isArray(args) || !args.every((arg): arg is string => typeof arg === 'string')) throw new ConfigError(`${where}: args must be a list of strings`);
  if (entry.cwd !== undefined && typeof entry.cwd !== 'string') throw new ConfigError(`${where}: cwd must be a string`);
  return {
    type: 'stdio',
    command: entry.command,
    args,
    ...optional('env', stringMap(entry.env, `${where}: env`)),
    ...optional('cwd', entry.cwd),
  };
}

const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

function stringMap(value: Json | undefined, where: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value) || !Object.values(value).every((item) => typeof item === 'string')) throw new ConfigError(`${where} must map names to strings`);
  return value as Record<string, string>;
}

const isDisabled = (entry: Json | undefined): boolean => isObject(entry) && entry.disabled === true;

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Every string in `value` with `${VAR}` / `${VAR:-default}` replaced from `env`. */
function expand(value: Json, env: NodeJS.ProcessEnv, where: string): Json {
  if (typeof value === 'string') {
    return value.replace(VARIABLE, (_, variable: string, fallback: string | undefined) => {
      const found = env[variable];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      throw new ConfigError(`${where} uses \${${variable}}, which is not set (give a default as \${${variable}:-value})`);
    });
  }
  if (Array.isArray(value)) return value.map((item) => expand(item, env, where));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expand(item, env, where)]));
  return value;
}
