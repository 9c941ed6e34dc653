/**
 * Our client connected to the official server 2.4.0 (a stdio child) with
 * what it sends recorded, closed after each test of the file that uses it.
 */
import { afterEach } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { officialStdio } from '../fixtures/stdio-peers.ts';
import { WireRecord } from './recording-transport.ts';

/** Registers the afterEach that closes every client made by the returned function. */
export function officialRecorded(): (era: 'modern' | 'legacy', args?: string[]) => Promise<{ client: McpClient; wire: WireRecord }> {
  const clients: McpClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  return async (era, args = []) => {
    const wire = new WireRecord(officialStdio(args).factory);
    const client = createClient({ transport: wire.factory, era, reconnect: false });
    clients.push(client);
    await client.connect();
    return { client, wire };
  };
}
