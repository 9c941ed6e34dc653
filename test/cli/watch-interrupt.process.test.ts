/**
 * Ctrl-C and SIGTERM at every stage of a watch: while the server has not
 * answered yet (one server, and each server of a --config), and while a read
 * is waiting on the server. The watcher stops what it started, prints its
 * last line and exits 0, at once; a server that dies of the same Ctrl-C (a
 * terminal sends it to the whole foreground group) is not reported as a lost
 * connection.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, BIN, CliRun, fixture, killAllCliRuns, watchCli, type JsonLine } from './cli-process.ts';
import { fixtureBundle } from '../setup/fixture-bundle.ts';

afterEach(killAllCliRuns);

const unanswering = (flag: '--silent' | '--no-lists') => [process.execPath, fixtureBundle(fixture('unanswering-server.ts')), flag];
const isType = (type: string) => (event: JsonLine) => event.type === type;

describe('watch interrupted', () => {
  it('Ctrl-C before the server has answered stops the server it started (even one that outlives its stdin) and exits 0', async () => {
    const run = watchCli(['--json', '--', ...unanswering('--silent')]);
    const { event: spawned } = await run.event(isType('spawned'), 'the server started');
    run.child.kill('SIGINT');
    // Checked as the watcher exits: a server left behind would also hold its output open.
    await run.ended;
    expect(alive(spawned.pid as number)).toBe(false);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.events.at(-1)).toMatchObject({ type: 'closed', reason: 'interrupted' });
    expect(run.stderr).toBe('');
  });

  it('SIGTERM while the servers of a --config connect stops every one of them and exits 0', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mcp-actors-interrupt-')), 'servers.json');
    const [command, ...args] = unanswering('--silent');
    writeFileSync(file, JSON.stringify({ mcpServers: { one: { command, args }, two: { command, args } } }));
    const run = watchCli(['--json', '--config', file]);
    await run.until(() => (run.serverPids.length === 2 ? true : undefined), 'both servers started');
    run.child.kill('SIGTERM');
    await run.ended;
    expect(run.serverPids.filter(alive)).toEqual([]);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.events.filter(isType('closed')).map((event) => [event.serverName, event.reason]).sort()).toEqual([
      ['one', 'interrupted'],
      ['two', 'interrupted'],
    ]);
  });

  it('Ctrl-C to the whole group while a read waits on the server ends the watch at once, with no lost connection', async () => {
    // As a terminal's Ctrl-C, to the watcher's process group; the server leads a group of its own, and the watcher stops it.
    const run = new CliRun(process.execPath, [BIN, 'watch', '--json', '--', ...unanswering('--no-lists')], { group: true });
    // The first read of the tools starts with the cache, and the server never answers it.
    await run.event((event) => event.type === 'cache' && event.state === 'listening', 'the cache listening');
    run.interruptGroup();
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const types = run.events.map((event) => event.type);
    expect(types).not.toContain('lost');
    expect(types).not.toContain('reconnecting');
    expect(run.events.at(-1)).toMatchObject({ type: 'closed', reason: 'disconnected' });
  });
});
