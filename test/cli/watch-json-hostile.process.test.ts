/**
 * `watch --json` whatever the server sends: a server named with a one-byte
 * CSI, a line separator and a right-to-left override, and a server whose
 * first line on stdout is such text instead of JSON-RPC. Every line of
 * output is one JSON object that parses back to the exact text, with none
 * of those characters raw (a terminal showing the JSON would act on them,
 * Python's str.splitlines would cut the line).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fixture, killAllCliRuns, watchCli, type CliRun } from './cli-process.ts';
import { fixtureBundle } from '../setup/fixture-bundle.ts';

afterEach(killAllCliRuns);

const HOSTILE = '\u009b2J\u2028forged\u0085\u202eevil';
const RAW = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** Every line of stdout, each checked to be one JSON object with nothing raw a terminal or a line splitter acts on. */
function jsonLines(run: CliRun): unknown[] {
  expect(run.stdout).not.toMatch(RAW);
  return run.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown);
}

describe('watch --json with hostile text', () => {
  it("carries the server's name exactly, escaped", async () => {
    const run = watchCli(['--json', '--once', '--', process.execPath, fixtureBundle(fixture('named-server.ts'))], { FIXTURE_NAME: HOSTILE });
    expect((await run.exited).code).toBe(0);
    expect(jsonLines(run)).toContainEqual(expect.objectContaining({ type: 'connected', server: expect.objectContaining({ name: HOSTILE }) }));
  });

  it('carries the error that quotes what the server printed exactly, escaped', async () => {
    const run = watchCli(['--json', '--', process.execPath, '-e', `process.stdout.write(${JSON.stringify(`${HOSTILE}\n`)}); process.stdin.resume()`]);
    expect((await run.exited).code).toBe(1);
    const error = jsonLines(run).find((line) => (line as { type?: string }).type === 'error') as { error: { message: string } };
    expect(error.error.message).toContain(JSON.stringify(HOSTILE).slice(1, -1));
  });
});
