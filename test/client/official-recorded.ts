/**
 * Our client connected to the official server 2.4.0 (a stdio child) with
 * what it sends recorded: one per test, closed after it, or one per era and
 * flags shared by the tests of a file, closed after them all.
 */
import { afterAll, afterEach } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { officialStdio } from '../fixtures/stdio-peers.ts';
import { WireRecord } from './recording-transport.ts';

interface Recorded {
  client: McpClient;
  wire: WireRecord;
}
type Connect = (era: 'modern' | 'legacy', args?: string[]) => Promise<Recorded>;

function recordedClient(era: 'modern' | 'legacy', args: string[]): Recorded {
  const wire = new WireRecord(officialStdio(args).factory);
  return { client: createClient({ transport: wire.factory, era, reconnect: false }), wire };
}

/** Registers the afterEach that closes every client made by the returned function. */
export function officialRecorded(): Connect {
  const clients: McpClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  return async (era, args = []) => {
    const recorded = recordedClient(era, args);
    clients.push(recorded.client);
    await recorded.client.connect();
    return recorded;
  };
}

/**
 * For the tests of a file that neither kill, restart nor close their
 * connection, and leave nothing open on it: a stdio server is one per
 * client, so each connection of its own would cost a child start. One
 * client per era and flags, connected on first use and closed in afterAll;
 * its wire record spans the connection, so a test finds what it sent by id.
 */
export function sharedOfficialRecorded(): Connect {
  const shared = new Map<string, { recorded: Recorded; connected: Promise<Recorded> }>();
  afterAll(async () => {
    const all = [...shared.values()];
    shared.clear();
    // Closed whether or not its connect succeeded: a failed one may still have started its child.
    await Promise.all(all.map(({ recorded }) => recorded.client.close()));
  });
  return (era, args = []) => {
    const key = JSON.stringify([era, args]);
    let entry = shared.get(key);
    if (!entry) {
      const recorded = recordedClient(era, args);
      entry = { recorded, connected: recorded.client.connect().then(() => recorded) };
      shared.set(key, entry);
    }
    return entry.connected;
  };
}
