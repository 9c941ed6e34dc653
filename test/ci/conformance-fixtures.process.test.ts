/**
 * The conformance wiring, without the whole suites (.ci/conformance.ts runs
 * those, from .ci/run): the fixture server and the client program each pass
 * one scenario as the 0.2.0-alpha.12 suite runs it, and every entry of the
 * baseline says which issue removes it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { fixtureBundle } from '../setup/fixture-bundle.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SUITE = ['--import', './test/fixtures/conformance-node20.mjs', 'node_modules/conformance-2026/dist/index.js'];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function run(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

it('the fixture server passes a server scenario', async () => {
  const server = spawn(process.execPath, [fixtureBundle('test/fixtures/conformance/server.ts')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(server);
  const line = await new Promise<string>((resolve) => createInterface({ input: server.stdout }).once('line', resolve));
  const { port } = JSON.parse(line) as { port: number };
  const result = await run([...SUITE, 'server', '--url', `http://127.0.0.1:${port}/mcp`, '--scenario', 'tools-call-with-progress', '--spec-version', '2026-07-28']);
  expect(result, result.output).toMatchObject({ code: 0 });
  expect(result.output).toMatch(/Passed: (\d+)\/\1, 0 failed/);
}, 120_000);

it('the client program passes a client scenario', async () => {
  const command = `${process.execPath} ${fixtureBundle('test/fixtures/conformance/client.ts')}`;
  const result = await run([...SUITE, 'client', '--command', command, '--scenario', 'tools_call', '--spec-version', '2026-07-28', '--timeout', '240000']);
  expect(result, result.output).toMatchObject({ code: 0 });
  expect(result.output).toMatch(/Passed: (\d+)\/\1, 0 failed/);
  // Generous: the suite and the client are two Node processes per scenario on a loaded 2-core machine.
}, 300_000);

it('names the issue of every baseline entry', () => {
  const lines = readFileSync(`${ROOT}/.ci/conformance-baseline.yaml`, 'utf8').split('\n');
  const entries = lines.filter((line) => /^\s+- /.test(line));
  // Empty today (every scored scenario passes); an entry added later must say which issue it waits for.
  expect(entries.filter((line) => !/^\s+- [\w/.-]+\s+# issue \d+: \S/.test(line))).toEqual([]);
  // The file is a mapping the harness can read: its sections, or `{}` when there are none.
  const body = lines.filter((line) => line.trim() !== '' && !line.startsWith('#'));
  expect(body.length).toBeGreaterThan(0);
  expect(body.every((line) => line === '{}' || /^"[^"]+":$/.test(line) || /^ {2}(client|server):$/.test(line) || /^\s+- /.test(line))).toBe(true);
});
