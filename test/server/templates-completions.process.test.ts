/**
 * Resource templates and completions on our server, as the official client
 * 2.4.0 sees them in both eras (modern mode validates every result against
 * the schema), over stdio (a child process) and loopback HTTP: templates
 * listed and read through, a fixed resource before a template, a missing
 * resource's error code per era, completions for a prompt argument and a
 * template variable with context.arguments, the 100-value cap, pagination,
 * removal announced as a resources list change, and the completions
 * capability present only while something can complete.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { createServer, DEFAULT_CACHING, InvalidPromptError, InvalidUriTemplateError, ResourceNotFoundError, type McpServer } from '../../src/server/index.ts';
import { buildTemplatesServer, MANY_DAYS } from '../fixtures/templates-server-setup.ts';
import { closeAllPeers, connectHttp, connectStdio, NotificationLog, RESOURCES_CHANGED, wire, type Era } from './official-peers.ts';

const STDIO_FIXTURE = fileURLToPath(new URL('../fixtures/templates-server-stdio.ts', import.meta.url));

let server: McpServer | undefined;

/** Closes the peers and the HTTP server a test (or, in the matrix, a case) made. */
async function closeAll(): Promise<void> {
  await closeAllPeers();
  await server?.close();
  server = undefined;
}

type Transport = 'stdio' | 'http';

async function connect(transport: Transport, era: Era): Promise<Client> {
  if (transport === 'stdio') return connectStdio(era, [], STDIO_FIXTURE);
  server = buildTemplatesServer();
  return connectHttp(era, (await server.listenHttp({ port: 0 })).url);
}

/** The JSON-RPC error code a rejected client call carries. */
async function errorCode(call: Promise<unknown>): Promise<unknown> {
  const error: unknown = await call.then(() => undefined, (caught: unknown) => caught);
  return (error as { code?: unknown } | undefined)?.code;
}

/**
 * The code of the last error response on the client's wire. Read there
 * because the official client reports a -32002 as its ResourceNotFoundError,
 * whose code is -32602 whichever the server sent.
 */
async function wireErrorCode(client: Client, call: Promise<unknown>): Promise<unknown> {
  await call.then(() => expect.unreachable('the call succeeded'), () => {});
  const errors = wire(client).filter((message) => 'error' in message);
  return (errors.at(-1)?.error as { code?: unknown } | undefined)?.code;
}

const CASES: [Transport, Era][] = [['stdio', 'legacy'], ['stdio', 'modern'], ['http', 'legacy'], ['http', 'modern']];

describe.each(CASES)('over %s, %s era', (transport, era) => {
  // One connection per case (over stdio, one server child): its tests only list, read and complete, which change nothing.
  let client: Client;
  beforeAll(async () => {
    client = await connect(transport, era);
  });
  afterAll(closeAll);

  it('lists the templates (without completions or caching) and reads URIs through them', async () => {
    expect(client.getServerCapabilities()?.completions).toEqual({});
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      { uriTemplate: 'notes://{folder}/{name}', name: 'note', title: 'A note', mimeType: 'text/plain' },
      { uriTemplate: 'search://items{?q,page}', name: 'search', mimeType: 'application/json' },
    ]);
    expect((await client.readResource({ uri: 'notes://work/todo%20list' })).contents).toEqual([
      { uri: 'notes://work/todo%20list', mimeType: 'text/plain', text: 'note todo list in work' },
    ]);
    const search = await client.readResource({ uri: 'search://items?page=2&q=rain' });
    expect(JSON.parse(String((search.contents[0] as { text: string }).text))).toEqual({ q: 'rain', page: '2' });
    // A fixed resource wins over a template that also matches its URI.
    expect((await client.readResource({ uri: 'notes://pinned/readme' })).contents).toEqual([
      { uri: 'notes://pinned/readme', mimeType: 'text/plain', text: 'the fixed readme' },
    ]);
  });

  it(`answers a URI no resource or template has with ${era === 'modern' ? '-32602 (SEP-2164)' : '-32002'}`, async () => {
    expect(await wireErrorCode(client, client.readResource({ uri: 'notes://too/many/parts' }))).toBe(era === 'modern' ? -32602 : -32002);
    expect(await wireErrorCode(client, client.readResource({ uri: 'other://thing' }))).toBe(era === 'modern' ? -32602 : -32002);
  });

  it('completes a prompt argument, and another one from the arguments already chosen', async () => {
    const city = await client.complete({ ref: { type: 'ref/prompt', name: 'weather' }, argument: { name: 'city', value: 'be' } });
    expect(city.completion).toEqual({ values: ['Berlin', 'Bern'], total: 2, hasMore: false });
    const district = await client.complete({
      ref: { type: 'ref/prompt', name: 'weather' },
      argument: { name: 'district', value: 'm' },
      context: { arguments: { city: 'Berlin' } },
    });
    expect(district.completion.values).toEqual(['Mitte', 'Moabit']);
  });

  it('completes template variables, the second from the first, and caps a result at 100 values', async () => {
    const ref = { type: 'ref/resource', uri: 'notes://{folder}/{name}' } as const;
    expect((await client.complete({ ref, argument: { name: 'folder', value: 'w' } })).completion.values).toEqual(['work']);
    const names = await client.complete({ ref, argument: { name: 'name', value: 't' }, context: { arguments: { folder: 'home' } } });
    expect(names.completion.values).toEqual(['tools']);
    const days = await client.complete({ ref: { type: 'ref/prompt', name: 'weather' }, argument: { name: 'day', value: '' } });
    expect(days.completion).toEqual({ values: MANY_DAYS.slice(0, 100), total: 250, hasMore: true });
  });

  it('completes to nothing for a variable without a callback, and refuses an unknown prompt or template with -32602', async () => {
    const search = await client.complete({ ref: { type: 'ref/resource', uri: 'search://items{?q,page}' }, argument: { name: 'q', value: 'r' } });
    expect(search.completion.values).toEqual([]);
    expect(await errorCode(client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } }))).toBe(-32602);
    expect(await errorCode(client.complete({ ref: { type: 'ref/resource', uri: 'nope://{x}' }, argument: { name: 'x', value: '' } }))).toBe(-32602);
  });
});

describe('templates and completions on an HTTP server changed at run time', () => {
  afterEach(closeAll);

  async function start(pageSize?: number): Promise<string> {
    server = createServer({ name: 'changing', version: '1.0.0', ...(pageSize ? { pageSize } : {}) });
    return (await server.listenHttp({ port: 0 })).url;
  }

  const read = (uri: string, variables: Readonly<Record<string, string>>) => [{ uri, text: JSON.stringify(variables) }];

  it.each(['legacy', 'modern'] as const)('pages resources/templates/list like the other lists (%s)', async (era) => {
    const url = await start(2);
    for (const key of ['c', 'a', 'e', 'b', 'd']) server!.defineResourceTemplate(`t://${key}/{id}`, { name: key }, read);
    const client = await connectHttp(era, url);
    // Without a cursor the official client follows nextCursor to the end; each page is on the wire.
    const all = await client.listResourceTemplates();
    expect(all.resourceTemplates.map((template) => template.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    const pages = wire(client)
      .map((message) => message.result as { resourceTemplates?: { name: string }[]; nextCursor?: string } | undefined)
      .filter((result) => result?.resourceTemplates !== undefined);
    expect(pages.map((page) => page!.resourceTemplates!.map((template) => template.name))).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    const second = await client.listResourceTemplates({ cursor: pages[0]!.nextCursor! });
    expect(second.resourceTemplates.map((template) => template.name)).toEqual(['c', 'd']);
    expect(pages[2]!.nextCursor).toBeUndefined();
  });

  it.each(['legacy', 'modern'] as const)('removes a template, announced as a resources list change (%s)', async (era) => {
    const url = await start();
    server!.defineResourceTemplate('t://{id}', { name: 't' }, read);
    const client = await connectHttp(era, url);
    const log = new NotificationLog(client, [RESOURCES_CHANGED]);
    if (era === 'modern') {
      // Modern list changes reach listen streams: open one and wait for its acknowledgment.
      await client.listen({ resourcesListChanged: true });
    }
    expect((await client.readResource({ uri: 't://7' })).contents).toEqual([{ uri: 't://7', text: '{"id":"7"}' }]);
    expect(server!.removeResourceTemplate('t://{id}')).toBe(true);
    expect(server!.removeResourceTemplate('t://{id}')).toBe(false);
    server!.notifyResourcesListChanged();
    await log.waitFor(RESOURCES_CHANGED);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect(await wireErrorCode(client, client.readResource({ uri: 't://7' }))).toBe(era === 'modern' ? -32602 : -32002);
  });

  it('advertises completions only while something can complete, and answers completion/complete only then', async () => {
    const url = await start();
    server!.definePrompt('plain', { arguments: [{ name: 'x' }] }, () => ({ messages: [] }));
    const before = await connectHttp('legacy', url);
    expect(before.getServerCapabilities()?.completions).toBeUndefined();
    expect(await errorCode(before.complete({ ref: { type: 'ref/prompt', name: 'plain' }, argument: { name: 'x', value: '' } }))).toBe(-32601);
    server!.defineResourceTemplate('t://{id}', { name: 't', complete: { id: () => ['1', '2'] } }, read);
    const after = await connectHttp('modern', url);
    expect(after.getServerCapabilities()?.completions).toEqual({});
    const ids = await after.complete({ ref: { type: 'ref/resource', uri: 't://{id}' }, argument: { name: 'id', value: '' } });
    expect(ids.completion.values).toEqual(['1', '2']);
  });

  it('gives modern template lists and reads their caching hints, a template\'s own over the server\'s', async () => {
    server = buildTemplatesServer();
    const client = await connectHttp('modern', (await server.listenHttp({ port: 0 })).url);
    await client.listResourceTemplates();
    await client.readResource({ uri: 'notes://work/todo' });
    await client.readResource({ uri: 'search://items' });
    const results = wire(client).filter((message) => 'result' in message).map((message) => message.result as Record<string, unknown>);
    expect(results.find((result) => 'resourceTemplates' in result)).toMatchObject(DEFAULT_CACHING.resourceTemplates);
    const reads = results.filter((result) => 'contents' in result);
    expect(reads[0]).toMatchObject({ ttlMs: 5_000, cacheScope: DEFAULT_CACHING.read.cacheScope });
    expect(reads[1]).toMatchObject(DEFAULT_CACHING.read);
  });

  it.each(['legacy', 'modern'] as const)('answers a reader\'s own ResourceNotFoundError with the era\'s code, and a bad completion with -32603 (%s)', async (era) => {
    const url = await start();
    server!.defineResourceTemplate('users://{id}', { name: 'user' }, (uri, { id }) => {
      if (id !== 'ada') throw new ResourceNotFoundError(uri);
      return [{ uri, text: 'Ada' }];
    });
    server!.definePrompt('broken', { arguments: [{ name: 'x', complete: (() => 'not a list') as never }] }, () => ({ messages: [] }));
    const client = await connectHttp(era, url);
    expect((await client.readResource({ uri: 'users://ada' })).contents).toEqual([{ uri: 'users://ada', text: 'Ada' }]);
    expect(await wireErrorCode(client, client.readResource({ uri: 'users://bob' }))).toBe(era === 'modern' ? -32602 : -32002);
    expect(await errorCode(client.complete({ ref: { type: 'ref/prompt', name: 'broken' }, argument: { name: 'x', value: '' } }))).toBe(-32603);
  });

  it('refuses a malformed template or completions for a variable it lacks, registering nothing', async () => {
    const url = await start();
    expect(() => server!.defineResourceTemplate('t://{id*}', { name: 'exploded' }, read)).toThrow(InvalidUriTemplateError);
    expect(() => server!.defineResourceTemplate('t://{id}', { name: 't', complete: { other: () => [] } }, read)).toThrow('other');
    expect(() => server!.definePrompt('p', { arguments: [{ name: 'x', complete: 'x' as never }] }, () => ({ messages: [] }))).toThrow(InvalidPromptError);
    const client = await connectHttp('legacy', url);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await client.listPrompts()).prompts).toEqual([]);
  });
});
