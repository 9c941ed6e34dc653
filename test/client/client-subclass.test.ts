/**
 * `McpClient` is an exported class: a subclass that overrides its public `request` (to log, count or trace requests)
 * sees every typed call, as it did before the typed calls moved to feature-calls.ts.
 */
import { describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.ts';
import type { RequestOptions } from '../../src/client/ports.ts';
import type { JsonObject } from '../../src/protocol/jsonrpc.ts';
import type { McpServer } from '../../src/server/index.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';
import { buildTemplatesServer } from '../fixtures/templates-server-setup.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { clients, servers } = closedAfterEach({ clients: [] as McpClient[], servers: [] as McpServer[] });

/** Records the method of every request that goes through `request`. */
class CountingClient extends McpClient {
  readonly methods: string[] = [];
  override request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    this.methods.push(method);
    return super.request(method, params, options);
  }
}

describe('a subclass of McpClient', () => {
  it('sees the typed calls go through its overridden request()', async () => {
    const server = buildTemplatesServer();
    servers.push(server);
    const client = new CountingClient({ transport: inMemoryTransport((end) => server.serveStdio(end)), era: 'legacy', reconnect: false });
    clients.push(client);
    await client.connect();
    client.methods.length = 0;
    await client.listResourceTemplates();
    await client.complete({ ref: { type: 'ref/prompt', name: 'weather' }, argument: { name: 'city', value: 'Be' } });
    await client.listTools();
    await client.listPrompts();
    expect(client.methods).toEqual(['resources/templates/list', 'completion/complete', 'tools/list', 'prompts/list']);
  });
});
