/**
 * `mcp-actors watch --json -- <official server>`: the official
 * @modelcontextprotocol/server 2.x over stdio, changing its tool list every
 * 100 ms, in both eras. The server is killed by the pid the CLI reported and
 * the CLI reconnects to a fresh process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, fixture, watchCliOfTest, type JsonLine } from './cli-process.ts';
import { fixtureArgs } from '../setup/fixture-bundle.ts';

const server = ['--', process.execPath, ...fixtureArgs(fixture('official-changing-server.ts')), '--interval-ms', '100'];
const isType = (type: string) => (event: JsonLine) => event.type === type;
const flickerDiff = (event: JsonLine) =>
  event.type === 'list_diff' && event.list === 'tools' && [...(event.added as string[]), ...(event.removed as string[])].includes('flicker');

describe.concurrent.each(['modern', 'legacy'] as const)('watch (official server 2.x, %s era)', (era) => {
  it('prints the era line, notifications and tool diffs, reconnects after the server is killed, exits 0 on SIGINT', async ({ onTestFinished }) => {
    const run = watchCliOfTest(onTestFinished, ['--json', '--era', era, ...server]);
    const { event: connected } = await run.event(isType('connected'), 'the connected line');
    expect(connected).toMatchObject({
      era,
      server: { name: 'official-changing-server', version: '1.0.0' },
      changes: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: false, resourceSubscribe: false },
      filter: { toolsListChanged: true, promptsListChanged: true },
    });
    await run.event((event) => event.type === 'notification' && event.method === 'notifications/tools/list_changed', 'a tools notification');
    await run.event(flickerDiff, 'a flicker diff');

    const [pid] = run.serverPids;
    process.kill(pid!, 'SIGKILL');
    const { index: lostAt } = await run.event(isType('lost'), 'the lost connection');
    await run.event(isType('reconnecting'), 'reconnecting', lostAt);
    const { event: respawned } = await run.event(isType('spawned'), 'a new server process', lostAt);
    expect(respawned.pid).not.toBe(pid);
    await run.event((event) => event.type === 'reconnected' && event.era === era, 'reconnected', lostAt);
    const { index: resyncedAt } = await run.event((event) => event.type === 'cache' && event.state === 'listening' && event.resumed === true, 'resynced', lostAt);
    await run.event(flickerDiff, 'a diff from the new process', resyncedAt + 1);

    run.child.kill('SIGINT');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.events.at(-1)).toMatchObject({ type: 'closed', reason: 'disconnected' });
    // A clean close leaves no server behind.
    expect(run.serverPids.filter(alive)).toEqual([]);
  });
});

describe.concurrent('watch (official server 2.x that cannot be restarted)', () => {
  it('with --max-attempts 5 reports every reconnect attempt, the cache degraded and the connection closed as reconnect_exhausted, and exits 1', async ({ onTestFinished }) => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-actors-cli-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const run = watchCliOfTest(onTestFinished, ['--json', '--max-attempts', '5', ...server, '--once', join(dir, 'started')]);
    await run.event(isType('connected'), 'the connected line');
    process.kill(run.serverPids[0]!, 'SIGKILL');

    const { code } = await run.exited;
    expect(code).toBe(1);
    const attempts = run.events.filter(isType('reconnecting')).map((event) => event.attempt);
    expect(attempts).toEqual([1, 2, 3, 4, 5]);
    expect(run.events.some((event) => event.type === 'cache' && event.state === 'degraded')).toBe(true);
    expect(run.events.at(-1)).toMatchObject({ type: 'closed', reason: 'reconnect_exhausted' });
  }, 60_000); // the default delays: five attempts, up to ~8 s of waiting, each respawn seconds of tsx start on a loaded machine
});

describe('watch (official server 2.x whose name is terminal escapes)', () => {
  it('writes what the server chose escaped: no control character reaches the terminal, no line is forged', async ({ onTestFinished }) => {
    // A window title (OSC 0), a screen clear, and a newline starting a line of its own.
    const hostile = '\x1b]0;pwned\x07\x1b[2J\n12:00:00.000  ● connected era modern';
    const run = watchCliOfTest(onTestFinished, ['--once', '--', process.execPath, ...fixtureArgs('test/fixtures/official-stdio-server.ts'), '--name', hostile]);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stdout).toContain('to \\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\u{a}12:00:00.000  ● connected era modern 1.0.0\n');
    expect(run.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
    expect(run.lines.filter((line) => /^\d\d:\d\d:\d\d\.\d{3} {2}● connected/.test(line))).toHaveLength(1);
  });
});
