/**
 * Interop matrix, direction A, last column: the MCP Inspector's CLI
 * (`@modelcontextprotocol/inspector` 2.12.0, `mcp-inspector --cli`) against
 * our server, over stdio (the Inspector spawns the fixture) and loopback
 * HTTP, in both eras (`--protocol-era legacy|modern`).
 *
 * 2.12.0 declares engines node>=22.19, but its CLI runs on Node 20 here
 * (only its web UI needs more), so it is the Inspector tested. Each
 * invocation is one process and one request: the CLI is one-shot, so it
 * cannot receive list changes or resource updates; what it can do is list
 * (its lists walk every page: one item per page here, so a complete list
 * proves the walk), read and call, with the official client's result
 * validation it is built on.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { buildFixtureServer, FIXTURE_URIS } from '../fixtures/own-server-setup.ts';
import { STDIO_FIXTURE } from '../server/official-peers.ts';
import { LISTS, OWN_FIXTURE_LISTS, type ListName } from './official-clients.ts';
import { fixtureBundle, inspectorLauncherBundle } from '../setup/fixture-bundle.ts';

const PAGE_SIZE = '1';
const SLOW = 120_000; // each invocation is a fresh Node process loading a 900 kB bundle, on two shared cores
/** The Inspector's CLI is linked from the bundle cache, or bundled by esbuild when its inputs changed: seconds on two shared cores. */
const BUNDLING = 60_000;

const METHODS: Record<ListName, string> = {
  tools: 'tools/list',
  prompts: 'prompts/list',
  resources: 'resources/list',
  resourceTemplates: 'resources/templates/list',
};

/** The Inspector keeps a catalog and settings under HOME; each run gets a scratch one. */
let home: string;
/** The Inspector's launcher (its `mcp-inspector` bin), bundled with the CLI it loads (test/setup/fixture-bundle.ts). */
let launcher: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'inspector-home-'));
  launcher = await inspectorLauncherBundle();
}, BUNDLING);
afterAll(() => rm(home, { recursive: true, force: true }));

const running = new Set<ReturnType<typeof spawn>>();
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

interface Outcome {
  code: number | null;
  output: Record<string, unknown>;
}

/**
 * Runs `mcp-inspector --cli --format json` once and parses the one JSON
 * object it prints. No connect timeout of its own: a loaded machine may take
 * longer than its 15 s default to start a stdio fixture, and the test's
 * timeout bounds the run anyway.
 */
function inspect(target: string[], era: 'legacy' | 'modern', method: string, extra: string[] = []): Promise<Outcome> {
  const child = spawn(process.execPath, [launcher, '--cli', '--format', 'json', '--connect-timeout', '0', '--protocol-era', era, '--method', method, ...extra, ...target], {
    env: { ...process.env, HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      running.delete(child);
      // An error envelope goes to stderr, a result to stdout.
      const printed = stdout.trim() || stderr.trim().split('\n').at(-1) || '{}';
      try {
        resolve({ code, output: JSON.parse(printed) as Record<string, unknown> });
      } catch {
        reject(new Error(`mcp-inspector ${method} printed no JSON (exit ${code}):\n${stdout}\n${stderr}`));
      }
    });
  });
}

const keysOf = (list: ListName, result: Record<string, unknown>) =>
  (result[list] as { name?: string; uri?: string; uriTemplate?: string }[]).map((item) =>
    list === 'resources' ? item.uri : list === 'resourceTemplates' ? item.uriTemplate : item.name);

const CELLS = (['stdio', 'http'] as const).flatMap((transport) => (['legacy', 'modern'] as const).map((era) => [transport, era] as const));

describe.each(CELLS)('the Inspector CLI against our server over %s, %s era', (transport, era) => {
  // One target per cell: each Inspector call is a session of its own (over stdio, a fixture process of its own), and the
  // calls only list, read and echo, so the HTTP server is started once for the cell's two tests.
  let server: McpServer | undefined;
  let target: string[];
  beforeAll(async () => {
    if (transport === 'stdio') {
      target = [process.execPath, fixtureBundle(STDIO_FIXTURE), '--page-size', PAGE_SIZE];
    } else {
      server = buildFixtureServer({ pageSize: Number(PAGE_SIZE) });
      target = [(await server.listenHttp({ port: 0 })).url];
    }
  });
  afterAll(async () => {
    await server?.close();
    server = undefined;
  });

  it('lists tools, prompts, resources and templates across every page', { timeout: SLOW }, async () => {
    const outcomes = await Promise.all(LISTS.map((list) => inspect(target, era, METHODS[list])));
    for (const [index, list] of LISTS.entries()) {
      const { code, output } = outcomes[index]!;
      expect({ list, code, error: output.error }).toEqual({ list, code: 0, error: undefined });
      expect(keysOf(list, output.result as Record<string, unknown>)).toEqual(OWN_FIXTURE_LISTS[list]);
    }
  });

  it('reads a resource and calls a tool', { timeout: SLOW }, async () => {
    const uri = FIXTURE_URIS[2]!;
    const [read, call] = await Promise.all([
      inspect(target, era, 'resources/read', ['--uri', uri]),
      inspect(target, era, 'tools/call', ['--tool-name', 'echo', '--tool-args-json', JSON.stringify({ text: 'from the inspector' })]),
    ]);
    expect(read).toEqual({ code: 0, output: { result: expect.objectContaining({ contents: [{ uri, mimeType: 'text/plain', text: `content of ${uri}` }] }) } });
    expect(call).toEqual({ code: 0, output: { result: expect.objectContaining({ content: [{ type: 'text', text: 'from the inspector' }] }) } });
  });
});
