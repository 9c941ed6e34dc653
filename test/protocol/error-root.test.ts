import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as client from '../../src/index.ts';
import * as redis from '../../src/redis/index.ts';
import * as server from '../../src/server/index.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * The CLI's and the diagram generator's errors end a command; a library user never catches them. The lean
 * runtime's refusal (src/runtime/) is raised when one of our own machines is hosted on it, in our tests.
 */
const NOT_LIBRARY = ['src/cli/', 'src/diagrams/', 'src/demo/', 'src/inspector/', 'src/runtime/'];

const exportedErrorClasses = new Map<string, unknown>();
for (const entry of [client, server, redis]) {
  for (const [name, value] of Object.entries(entry)) {
    if (typeof value === 'function' && value.prototype instanceof Error) exportedErrorClasses.set(name, value);
  }
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('one root for every error', () => {
  it('every exported error class extends McpActorsError', () => {
    expect(exportedErrorClasses.size).toBeGreaterThan(60);
    const strays = [...exportedErrorClasses].filter(([name, cls]) => name !== 'McpActorsError' && !((cls as { prototype: object }).prototype instanceof client.McpActorsError)).map(([name]) => name);
    expect(strays).toEqual([]);
  });

  it('every error class the library defines is exported from an entry point', () => {
    const defined = [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'machines'))]
      .filter((file) => !NOT_LIBRARY.some((prefix) => relative(ROOT, file).startsWith(prefix)))
      .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/export (?:abstract )?class (\w+) extends (\w+)/g)])
      .filter(([, , base]) => base === 'Error' || base === 'McpActorsError' || exportedErrorClasses.has(base!) || base === 'WireError')
      .map(([, name]) => name!);
    expect(defined.length).toBeGreaterThan(60);
    expect(defined.filter((name) => !exportedErrorClasses.has(name))).toEqual([]);
  });

  it('the same three entry points export one McpActorsError and one isMcpActorsError', () => {
    expect(server.McpActorsError).toBe(client.McpActorsError);
    expect(redis.McpActorsError).toBe(client.McpActorsError);
    expect(server.isMcpActorsError).toBe(client.isMcpActorsError);
    expect(redis.isMcpActorsError).toBe(client.isMcpActorsError);
  });

  it('isMcpActorsError reads the Symbol.for brand, so another copy of the package answers the same', () => {
    const timeout = new client.RequestTimeoutError('tools/list', 5);
    expect(client.isMcpActorsError(timeout)).toBe(true);
    expect(timeout.code).toBe('request_timeout');
    expect(client.isMcpActorsError(new server.InvalidParamsError('bad'))).toBe(true);
    expect(new server.InvalidParamsError('bad').code).toBe('invalid_params');
    expect(client.isMcpActorsError(new client.FrameError('unparseable', 'bad frame'))).toBe(true);
    // What another copy's error looks like to this one: a different class with the same registered symbol.
    class OtherCopyError extends Error {}
    Object.defineProperty(OtherCopyError.prototype, Symbol.for('mcp-actors.error'), { value: true });
    expect(client.isMcpActorsError(new OtherCopyError('x'))).toBe(true);
    expect(new OtherCopyError('x') instanceof client.McpActorsError).toBe(false);
    expect(client.isMcpActorsError(new Error('plain'))).toBe(false);
    expect(client.isMcpActorsError({ name: 'RequestTimeoutError', code: 'request_timeout' })).toBe(false);
    expect(client.isMcpActorsError(undefined)).toBe(false);
  });
});
