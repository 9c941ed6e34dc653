/**
 * `watch -- sh -c '…'`: a server started through a shell, which starts a
 * long-running process of its own. Stopping the watcher stops the whole tree,
 * not just the shell it spawned.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { killAllCliRuns, watchCli } from './cli-process.ts';
import { hasExited, listenForProcessTree, throughShell, type ProcessTreeReports } from '../transport/fixtures/process-tree.ts';

const listening: ProcessTreeReports[] = [];
afterEach(async () => {
  await killAllCliRuns();
  for (const reports of listening.splice(0)) {
    // What the watcher failed to stop is ended here, so a failing test leaves nothing behind.
    for (const pid of reports.pids) if (!hasExited(pid)) process.kill(pid, 'SIGKILL');
    await reports.close();
  }
});

describe('watch of a server behind a shell', () => {
  it('SIGTERM to the watcher stops the shell, the server under it and the process the server started', async () => {
    const reports = await listenForProcessTree();
    listening.push(reports);
    const run = watchCli(['--json', '--', ...throughShell(reports.socketPath)]);
    await run.event((event) => event.type === 'connected', 'the connection up');
    const { event: spawned } = await run.event((event) => event.type === 'spawned', 'the shell started');
    const server = await reports.reported('server');
    const grandchild = await reports.reported('grandchild');

    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    await server.ended;
    // The grandchild outlives its parents unless its whole group is signalled: this waits for its end.
    await grandchild.ended;
    expect([spawned.pid as number, server.pid, grandchild.pid].filter((pid) => !hasExited(pid))).toEqual([]);
    expect(run.events.at(-1)).toMatchObject({ type: 'closed' });
  }, 15_000);

  it('a second Ctrl-C, which exits without waiting for the close, still stops a server that outlives its stdin, and what it started', async () => {
    const reports = await listenForProcessTree();
    listening.push(reports);
    const run = watchCli(['--json', '--', ...throughShell(reports.socketPath, ['--outlive-stdin'])]);
    await run.event((event) => event.type === 'connected', 'the connection up');
    const { event: spawned } = await run.event((event) => event.type === 'spawned', 'the shell started');
    const server = await reports.reported('server');
    const grandchild = await reports.reported('grandchild');

    run.child.kill('SIGINT');
    // The first Ctrl-C's close has ended the server's stdin; the server runs on (its SIGTERM is seconds away).
    await reports.reported('stdin-ended');
    run.child.kill('SIGINT');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    await server.ended;
    await grandchild.ended;
    expect([spawned.pid as number, server.pid, grandchild.pid].filter((pid) => !hasExited(pid))).toEqual([]);
  }, 15_000);
});
