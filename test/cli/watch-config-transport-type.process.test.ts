/**
 * `watch --config FILE` with entries whose `"type"` names a transport this
 * client does not speak: `sse` (the 2024-11-05 HTTP+SSE transport hosts still
 * write) and a type nobody defines. Each is one line naming the server and the
 * type; the stdio server beside them (a real child process) is still watched,
 * and the run ends with 1.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readHostConfig } from '../../src/cli/host-config.ts';
import { configFolder } from './config-folder.ts';
import { fixtureBundle } from '../setup/fixture-bundle.ts';
import { fixture, killAllCliRuns, watchCli } from './cli-process.ts';

const { writeJson: writeConfig } = configFolder('mcp-actors-config-type-');
afterEach(killAllCliRuns);

const SSE_LINE = 'server "legacy": transport type "sse" (the 2024-11-05 HTTP+SSE transport) is not supported; only stdio and Streamable HTTP ("http") are';
const UNKNOWN_LINE = 'server "odd": unknown transport type "websocket" (expected one of: stdio, http, streamable-http)';

describe('config entry types', () => {
  it('an "sse" entry or an unknown type is not read as Streamable HTTP', () => {
    const file = writeConfig('types.json', {
      mcpServers: {
        legacy: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
        odd: { type: 'websocket', url: 'http://127.0.0.1:9/ws' },
        modern: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
        streamable: { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp' },
      },
    });
    const targets = Object.fromEntries(readHostConfig(file, [], {}).map(({ name, target }) => [name, target]));
    expect(targets.legacy).toMatchObject({ type: 'unsupported', error: { code: 'config', message: SSE_LINE } });
    expect(targets.odd).toMatchObject({ type: 'unsupported', error: { code: 'config', message: UNKNOWN_LINE } });
    expect(targets.modern).toEqual({ type: 'http', url: new URL('http://127.0.0.1:9/mcp') });
    expect(targets.streamable).toEqual({ type: 'http', url: new URL('http://127.0.0.1:9/mcp') });
  });

  it('watch reports each unsupported entry in one line, watches the others, and exits 1', async () => {
    const file = writeConfig('mixed.json', {
      mcpServers: {
        alpha: { command: process.execPath, args: [fixtureBundle(fixture('named-server.ts'))], env: { FIXTURE_NAME: 'alpha' } },
        legacy: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
        odd: { type: 'websocket', url: 'http://127.0.0.1:9/ws' },
      },
    });
    const run = watchCli(['--json', '--once', '--config', file]);
    expect((await run.exited).code).toBe(1);
    expect(run.events.find((event) => event.type === 'connected' && event.serverName === 'alpha')).toMatchObject({ server: { name: 'alpha' } });
    expect(run.stderr.trim().split('\n').sort()).toEqual([`mcp-actors: [legacy] ${SSE_LINE}`, `mcp-actors: [odd] ${UNKNOWN_LINE}`]);
  }, 40_000);

  it('a config whose only server is "sse" is that one line, exit 1', async () => {
    const file = writeConfig('only-sse.json', { mcpServers: { legacy: { type: 'sse', url: 'http://127.0.0.1:9/sse' } } });
    const run = watchCli(['--config', file]);
    expect((await run.exited).code).toBe(1);
    expect(run.stderr.trim()).toBe(`mcp-actors: ${SSE_LINE}`);
  });
});
