/**
 * A stdio server started through a shell (as `sh -c`, `npx` and `uvx` start
 * one) that starts a long-running process of its own: closing the client
 * stops the whole tree, not just the shell it spawned.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { stdioTransport, type StdioClientTransport } from '../../src/transport/stdio.ts';
import { hasExited, listenForProcessTree, throughShell, type ProcessTreeReports } from './fixtures/process-tree.ts';

const opened: Array<{ client: McpClient; reports: ProcessTreeReports; transports: StdioClientTransport[] }> = [];
afterEach(async () => {
  for (const { client, reports, transports } of opened.splice(0)) {
    await client.close();
    // What the fix failed to stop is ended here, so a failing test leaves nothing behind.
    const shells = transports.flatMap((transport) => (transport.pid === undefined ? [] : [transport.pid]));
    for (const pid of [...shells, ...reports.pids]) if (!hasExited(pid)) process.kill(pid, 'SIGKILL');
    await reports.close();
  }
});

describe('stdio transport process group', () => {
  it('closing the client stops the shell, the server under it and the process the server started', async () => {
    const reports = await listenForProcessTree();
    const [command, ...args] = throughShell(reports.socketPath);
    const make = stdioTransport({ command: command!, args });
    const transports: StdioClientTransport[] = [];
    const client = createClient({ transport: () => transports[transports.push(make()) - 1]! });
    opened.push({ client, reports, transports });
    await client.connect();
    const server = await reports.reported('server');
    const grandchild = await reports.reported('grandchild');
    const shellPid = transports[0]!.pid!;
    // Three processes: the shell stayed in between.
    expect(new Set([shellPid, server.pid, grandchild.pid]).size).toBe(3);

    await client.close();
    await server.ended;
    // The grandchild outlives its parents unless its whole group is signalled: this waits for its end.
    await grandchild.ended;
    expect([shellPid, server.pid, grandchild.pid].filter((pid) => !hasExited(pid))).toEqual([]);
  }, 15_000);
});
