/**
 * examples/tool-list-service.ts runs: pointed at the official server over
 * stdio, it answers GET /tools from the change cache and GET /state with the
 * cache's state and filter, picks up a tool the server adds while it runs,
 * and stops on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureArgs, fixtureBundle } from '../setup/fixture-bundle.ts';

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Starts the example and resolves with its URL once it says it is listening; `log()` is its stderr so far. */
async function startService(serverArgs: string[]): Promise<{ child: ChildProcess; url: string; log(): string }> {
  const child = spawn(
    process.execPath,
    [fixtureBundle(path('../../examples/tool-list-service.ts')), '--port', '0', '--', process.execPath, ...fixtureArgs(path('../fixtures/official-stdio-server.ts')), ...serverArgs],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    log += chunk.toString('utf8');
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the service exited (${code}) before listening`)));
  });
  return { child, url, log: () => log };
}

interface ToolsAnswer {
  state: string;
  freshness: string;
  tools: string[];
}
const getTools = async (url: string) => (await (await fetch(`${url}/tools`)).json()) as ToolsAnswer;

describe('examples/tool-list-service.ts', () => {
  for (const [era, flags] of [['modern', []], ['legacy', ['--modern-off']]] as const) {
    it(`serves the tool list from the cache (${era} server) and stops on SIGTERM`, async () => {
      const { child, url } = await startService([...flags]);
      const tools = await getTools(url);
      expect(tools.tools).toEqual(expect.arrayContaining(['echo', 'emit', 'filler-5']));
      const state = (await (await fetch(`${url}/state`)).json()) as { state: string; filter: unknown };
      expect(state).toEqual({ state: 'listening', filter: { toolsListChanged: true } });
      expect(tools.freshness).toBe('current');

      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    });

    it(`lists a tool the server adds while it runs (${era} server)`, async () => {
      // The server registers `added-1` once its first tools/list answer (the cache's first fetch) is written,
      // and announces it with notifications/tools/list_changed.
      const { child, url, log } = await startService([...flags, '--add-tool-after-lists', '1']);
      // The service logs each replacement once it is in the cache: the first fetch, then the refetch the change caused.
      await expect.poll(() => log().match(/cache: tools replaced/g)?.length ?? 0, { timeout: 10_000 }).toBe(2);
      const tools = await getTools(url);
      expect(tools).toMatchObject({ state: 'listening', freshness: 'current' });
      expect(tools.tools).toEqual(expect.arrayContaining(['echo', 'emit', 'filler-5', 'added-1']));

      child.kill('SIGTERM');
      await once(child, 'exit');
    });
  }
});
