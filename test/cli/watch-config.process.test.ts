/**
 * `watch --config FILE`: the `mcpServers` map MCP hosts keep. Two stdio
 * servers (real child processes, their env and cwd from the file) and our
 * HTTP server (a child process on loopback) in one timeline, each line
 * carrying its server's name; --server picks some; ${VAR} is expanded.
 */
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, readHostConfig } from '../../src/cli/host-config.ts';
import { startHttpFixture, type HttpFixture } from '../fixtures/http-fixture-process.ts';
import { fixtureBundle } from '../setup/fixture-bundle.ts';
import { fixture, killAllCliRuns, ROOT, watchCli, type JsonLine } from './cli-process.ts';
import { configFolder } from './config-folder.ts';

const { dir, writeJson: writeConfig } = configFolder('mcp-actors-config-');
afterEach(killAllCliRuns);

/** Two stdio servers told apart by env and cwd, and the HTTP server at `url`. */
const hostConfig = (url: string) => ({
  mcpServers: {
    alpha: {
      command: process.execPath,
      args: ['${FIXTURES}/named-server.mjs'],
      env: { FIXTURE_NAME: 'alpha-${GREETING:-hello}' },
      cwd: join(ROOT, 'test'),
    },
    beta: {
      command: process.execPath,
      args: ['${FIXTURES}/named-server.mjs'],
      env: { FIXTURE_NAME: 'beta' },
      cwd: join(ROOT, 'test', 'cli'),
    },
    web: { url, headers: { Authorization: 'Bearer ${TOKEN}' } },
  },
});

// The stdio servers start from this run's bundle of test/cli/fixtures (plain node, no tsx).
const env = { FIXTURES: dirname(fixtureBundle(fixture('named-server.ts'))), TOKEN: 'secret', GREETING: '' };

const connectedOf = (events: JsonLine[], name: string) => events.find((event) => event.type === 'connected' && event.serverName === name);

describe('watch --config', () => {
  // One HTTP server for the file's runs: each run is a session of its own that ends with it, and none stops the server.
  let server: HttpFixture;
  beforeAll(async () => {
    server = await startHttpFixture('own');
  });
  afterAll(() => server?.stop());

  it('watches every server of the file in one timeline, each line named', async () => {
    const file = writeConfig('three.json', hostConfig(server.url));
    const run = watchCli(['--json', '--config', file], env);
    await run.until(() => (['alpha', 'beta', 'web'].every((name) => connectedOf(run.events, name)) ? true : undefined), 'three connected lines', 40_000);
    // env (with a ${VAR:-default}) and cwd reached each stdio server: it names itself from them.
    expect(connectedOf(run.events, 'alpha')).toMatchObject({ server: { name: 'alpha-hello', version: 'test' } });
    expect(connectedOf(run.events, 'beta')).toMatchObject({ server: { name: 'beta', version: 'cli' } });
    expect(connectedOf(run.events, 'web')).toMatchObject({ server: { name: 'own-fixture' }, era: 'modern' });
    for (const name of ['alpha', 'beta', 'web']) {
      await run.event((event) => event.type === 'list' && event.list === 'tools' && event.serverName === name, `${name}'s tools`);
    }
    expect(run.events.every((event) => typeof event.serverName === 'string')).toBe(true);
    expect(run.events.filter((event) => event.type === 'spawned').map((event) => event.serverName).sort()).toEqual(['alpha', 'beta']);

    run.child.kill('SIGINT');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const closed = run.events.filter((event) => event.type === 'closed');
    expect(closed.map((event) => [event.serverName, event.reason]).sort()).toEqual([
      ['alpha', 'disconnected'],
      ['beta', 'disconnected'],
      ['web', 'disconnected'],
    ]);
  }, 60_000);

  it('--server picks servers by name; the human timeline prefixes each line with it', async () => {
    const file = writeConfig('pick.json', hostConfig(server.url));
    const run = watchCli(['--once', '--config', file, '--server', 'web'], env);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const lines = run.stdout.split('\n').filter((line) => /^\d\d:/.test(line));
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(line).toMatch(/^\S+ {2}\[web\] /);
    expect(run.stdout).not.toMatch(/\[(alpha|beta)\]/);
  }, 40_000);

  it('a mistake in the file is one line naming it, exit 1', async () => {
    const file = writeConfig('bad.json', { mcpServers: { one: { args: ['x'] } } });
    const run = watchCli(['--config', file]);
    expect((await run.exited).code).toBe(1);
    expect(run.stderr.trim()).toBe('mcp-actors: server "one" has neither a "command" nor a "url"');
  });
});

describe('readHostConfig', () => {
  const file = writeConfig('unit.json', hostConfig('http://127.0.0.1:9/mcp'));

  it('reads stdio and HTTP entries with ${VAR} and ${VAR:-default} expanded', () => {
    const servers = readHostConfig(file, [], { FIXTURES: '/f', TOKEN: 't0k', GREETING: 'hi' });
    expect(servers.map((entry) => entry.name)).toEqual(['alpha', 'beta', 'web']);
    expect(servers[0]!.target).toEqual({
      type: 'stdio',
      command: process.execPath,
      args: ['/f/named-server.mjs'],
      env: { FIXTURE_NAME: 'alpha-hi' },
      cwd: join(ROOT, 'test'),
    });
    expect(servers[2]!.target).toEqual({ type: 'http', url: new URL('http://127.0.0.1:9/mcp'), headers: { Authorization: 'Bearer t0k' } });
  });

  it('an unset variable without a default, an unknown --server, and a file without mcpServers are ConfigErrors', () => {
    expect(() => readHostConfig(file, [], { FIXTURES: '/f' })).toThrow(/server "web" uses \$\{TOKEN\}, which is not set/);
    expect(() => readHostConfig(file, ['gamma'], env)).toThrow(/has no server "gamma" \(it has: alpha, beta, web\)/);
    expect(() => readHostConfig(writeConfig('empty.json', { servers: {} }), [], env)).toThrow(ConfigError);
    expect(() => readHostConfig(join(dir, 'missing.json'), [], env)).toThrow(/cannot read config .*ENOENT/);
  });
});
