/**
 * complete() and listResourceTemplates() typed, against our server with
 * templates and completions (test/fixtures/templates-server-setup.ts) over
 * the in-memory pair, in both eras.
 */
import { describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import type { McpServer } from '../../src/server/index.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';
import { buildTemplatesServer, CITIES } from '../fixtures/templates-server-setup.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { clients, servers } = closedAfterEach({ clients: [] as McpClient[], servers: [] as McpServer[] });

describe.each(['legacy', 'modern'] as const)('typed completions and templates (%s)', (era) => {
  it('complete() answers a CompleteResult and listResourceTemplates() ResourceTemplate[]', async () => {
    const server = buildTemplatesServer();
    servers.push(server);
    const client = createClient({ transport: inMemoryTransport((end) => server.serveStdio(end)), era, reconnect: false });
    clients.push(client);
    await client.connect();

    const cities = await client.complete({ ref: { type: 'ref/prompt', name: 'weather' }, argument: { name: 'city', value: 'Be' } });
    expect(cities.completion.values).toEqual(CITIES.filter((city) => city.startsWith('Be')));
    const districts = await client.complete({
      ref: { type: 'ref/prompt', name: 'weather' },
      argument: { name: 'district', value: 'M' },
      context: { arguments: { city: 'Paris' } },
    });
    expect(districts.completion.values).toEqual(['Marais', 'Montmartre']);
    const days = await client.complete({ ref: { type: 'ref/prompt', name: 'weather' }, argument: { name: 'day', value: '' } });
    expect(days.completion).toMatchObject({ total: 250, hasMore: true });
    expect(days.completion.values).toHaveLength(100);

    const templates = await client.listResourceTemplates();
    expect(templates.map((template) => [template.uriTemplate, template.name])).toEqual([
      ['notes://{folder}/{name}', 'note'],
      ['search://items{?q,page}', 'search'],
    ]);
    expect(templates[0]?.title).toBe('A note');
  });
});
