/**
 * Errors a person can act on: the innermost cause on one line, the whole
 * chain as {name, message, code, cause} with --json, a peer that prints
 * garbage failing within seconds and quoting it; --version; NO_COLOR and
 * FORCE_COLOR; Ctrl-C through npm start and through the bin as a terminal
 * sends it (to the whole process group).
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHttpFixture, type HttpFixture } from '../fixtures/http-fixture-process.ts';
import { BIN, CliRun, killAllCliRuns, ROOT, watchCli } from './cli-process.ts';
import { unassignedPort } from '../fixtures/free-port.ts';

afterEach(killAllCliRuns);

const ESC = '\x1b[';

describe('errors a person can act on', () => {
  it('a refused connection says ECONNREFUSED and the address on one line; --json carries the chain', async () => {
    const port = await unassignedPort();
    const url = `http://127.0.0.1:${port}/mcp`;
    // --max-attempts 0: no retries, so the first refusal is the error (by default the watcher waits for the server).
    const run = watchCli(['--json', '--max-attempts', '0', url]);
    expect((await run.exited).code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([`mcp-actors: cannot watch ${url}: ECONNREFUSED 127.0.0.1:${port}`]);
    const error = run.events.find((event) => event.type === 'error')!.error as Record<string, unknown>;
    expect(error).toMatchObject({ name: 'WatchConnectError', code: 'watch_connect', message: expect.stringContaining('ECONNREFUSED') });
    // Down the chain: the fetch failure, then the system error with its code.
    const chain: Array<Record<string, unknown>> = [];
    for (let link: unknown = error; link !== null && typeof link === 'object'; link = (link as { cause?: unknown }).cause) chain.push(link as Record<string, unknown>);
    expect(chain.at(-1)).toMatchObject({ code: 'ECONNREFUSED', message: expect.stringContaining(`127.0.0.1:${port}`) });
    for (const link of chain) expect(Object.keys(link).sort()).toEqual(expect.arrayContaining(['message', 'name']));
  });

  it('a stdio peer that prints garbage fails within seconds, quoting what it printed', async () => {
    const run = watchCli(['--json', '--', process.execPath, '-e', "console.log('Hello from a server that logs to stdout'); setInterval(() => {}, 1000)"]);
    expect((await run.exited).code).toBe(1);
    // Timed by the CLI's own clock, from the server's start to the failure, so a loaded machine's slow startup does not count.
    const spawned = run.events.find((event) => event.type === 'spawned')!;
    const failed = run.events.find((event) => event.type === 'error')!;
    const elapsedMs = Date.parse(failed.time) - Date.parse(spawned.time);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/not JSON-RPC instead of answering: "Hello from a server that logs to stdout"/);
    // The probe timeout (2 s) after the garbage, not the 30 s an unanswered initialize waits.
    expect(elapsedMs).toBeGreaterThanOrEqual(2_000);
    expect(elapsedMs).toBeLessThan(10_000);
  });
});

describe('the command line a person expects', () => {
  // One server for these tests: each CLI run is a session of its own that ends with the run, and none stops the server.
  let server: HttpFixture;
  beforeAll(async () => {
    server = await startHttpFixture('own');
  });
  afterAll(() => server?.stop());

  it('--version prints the package version', async () => {
    const run = new CliRun(process.execPath, [BIN, '--version']);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stdout.trim()).toBe((JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { version: string }).version);
  });

  it('FORCE_COLOR colours a pipe, NO_COLOR wins over it', async () => {
    const forced = watchCli(['--once', server.url], { FORCE_COLOR: '1', NO_COLOR: '' });
    expect((await forced.exited).code).toBe(0);
    expect(forced.stdout).toContain(ESC);
    const plain = watchCli(['--once', server.url], { FORCE_COLOR: '1', NO_COLOR: '1' });
    expect((await plain.exited).code).toBe(0);
    expect(plain.stdout).toContain('connected');
    expect(plain.stdout).not.toContain(ESC);
  }, 60_000);

  it('Ctrl-C on the bin run directly exits 0 after closing cleanly', async () => {
    const run = new CliRun(BIN, ['watch', '--json', server.url], { group: true });
    await run.event((event) => event.type === 'idle', 'the idle hint');
    run.interruptGroup();
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.events.at(-1)).toMatchObject({ type: 'closed', reason: 'disconnected' });
  });

  it('Ctrl-C through npm start: the watcher closes cleanly; npm, whose shell died of the SIGINT, reports it (README)', async () => {
    // --ignore-scripts skips only prestart's build (the suite's setup built dist/); start itself runs.
    const run = new CliRun('npm', ['start', '--silent', '--ignore-scripts', '--', '--json', server.url], { group: true });
    await run.event((event) => event.type === 'idle', 'the idle hint');
    run.interruptGroup();
    await run.event((event) => event.type === 'closed', 'the closed line');
    expect(run.events.at(-1)).toMatchObject({ type: 'closed', reason: 'disconnected' });
    expect(await run.exited).toEqual({ code: null, signal: 'SIGINT' });
  });
});
