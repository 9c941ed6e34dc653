/**
 * examples/tool-list-service.ts runs: pointed at the official server over
 * stdio, it answers GET /tools from the change cache and GET /state with the
 * cache's state and filter, and stops on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Starts the example and resolves with its URL once it says it is listening. */
async function startService(serverArgs: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path('../../examples/tool-list-service.ts'), '--port', '0', '--', process.execPath, '--import', 'tsx', path('../fixtures/official-stdio-server.ts'), ...serverArgs],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  children.push(child);
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the service exited (${code}) before listening`)));
  });
  return { child, url };
}

describe('examples/tool-list-service.ts', () => {
  for (const [era, flags] of [['modern', []], ['legacy', ['--modern-off']]] as const) {
    it(`serves the tool list from the cache (${era} server) and stops on SIGTERM`, async () => {
      const { child, url } = await startService([...flags]);
      const tools = (await (await fetch(`${url}/tools`)).json()) as { state: string; freshness: string; tools: string[] };
      expect(tools.tools).toEqual(expect.arrayContaining(['echo', 'emit', 'filler-5']));
      const state = (await (await fetch(`${url}/state`)).json()) as { state: string; filter: unknown };
      expect(state).toEqual({ state: 'listening', filter: { toolsListChanged: true } });
      expect(tools.freshness).toBe('current');

      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    });
  }
});
