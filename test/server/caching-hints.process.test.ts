/**
 * Caching hints (2026-07-28 caching page): every cacheable modern result
 * carries `ttlMs` and `cacheScope`, legacy results carry none, and the
 * official client 2.x in modern mode, which validates results against the
 * schema, lists and reads from our server over stdio and HTTP.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { createServer, DEFAULT_CACHING, InvalidCachingError, type McpServer } from '../../src/server/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { closeAllPeers, connectHttp, connectStdio, wire } from './official-peers.ts';
import { RawStdioPeer, type Message } from './raw-stdio-peer.ts';

let server: McpServer | undefined;

afterEach(async () => {
  await closeAllPeers();
  await server?.close();
  server = undefined;
});

const CACHEABLE = [
  { method: 'server/discover', kind: 'discover', params: {} },
  { method: 'tools/list', kind: 'tools', params: {} },
  { method: 'prompts/list', kind: 'prompts', params: {} },
  { method: 'resources/list', kind: 'resources', params: {} },
  { method: 'resources/templates/list', kind: 'resourceTemplates', params: {} },
  { method: 'resources/read', kind: 'read', params: { uri: 'test://resource/1' } },
] as const;

const LEGACY_INIT = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };

describe('caching hints on the wire over stdio', () => {
  // One connection serves both eras: initialize opens its legacy session, requests carrying the modern envelope are modern.
  let shared: RawStdioPeer;
  let nextId = 100;
  let initialized: Message;

  beforeAll(async () => {
    shared = new RawStdioPeer(['--page-size', '2']);
    shared.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: LEGACY_INIT });
    initialized = await shared.response(1);
    shared.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  });
  afterAll(() => shared.stop());

  async function modern(method: string, params: Record<string, unknown> = {}): Promise<Message> {
    const id = nextId++;
    shared.request(id, method, params);
    return shared.response(id);
  }

  it.each(CACHEABLE)('$method carries the default ttlMs and cacheScope in the modern era', async ({ method, kind, params }) => {
    const { result, error } = await modern(method, params);
    expect(error).toBeUndefined();
    expect(result).toMatchObject({ resultType: 'complete', ...DEFAULT_CACHING[kind] });
  });

  it.each(CACHEABLE)('$method carries no caching hints in the legacy era', async ({ method, params }) => {
    // server/discover is modern only: the legacy answer to the same question is initialize's.
    let answer = initialized;
    if (method !== 'server/discover') {
      const id = nextId++;
      shared.send({ jsonrpc: '2.0', id, method, params });
      answer = await shared.response(id);
    }
    expect(answer.error).toBeUndefined();
    expect(answer.result).toBeDefined();
    expect(answer.result).not.toHaveProperty('ttlMs');
    expect(answer.result).not.toHaveProperty('cacheScope');
    expect(answer.result).not.toHaveProperty('resultType');
  });

  it('gives each page of a paginated list its own hints, with one scope for every page', async () => {
    const first = await modern('resources/list');
    expect(first.result).toMatchObject(DEFAULT_CACHING.resources);
    expect(first.result!.nextCursor).toEqual(expect.any(String));
    const second = await modern('resources/list', { cursor: first.result!.nextCursor });
    expect(second.result).toMatchObject(DEFAULT_CACHING.resources);
  });
});

describe('caching options', () => {
  async function configured(): Promise<string> {
    server = buildFixtureServer({
      caching: { ttlMs: 5_000, tools: { ttlMs: 30_000 }, prompts: { cacheScope: 'private' }, read: { ttlMs: 1_000 } },
    });
    server.defineResource('test://per-user', { name: 'per-user', caching: { ttlMs: 0, cacheScope: 'private' } }, (uri) => [{ uri, text: 'mine' }]);
    server.defineResource('test://shared', { name: 'shared', caching: { cacheScope: 'public' } }, (uri) => [{ uri, text: 'ours' }]);
    return (await server.listenHttp({ port: 0 })).url;
  }

  const resultOnWire = (client: Client, method: string) => {
    const sent = wire(client).filter((message) => 'result' in message);
    return sent.map((message) => message.result as Record<string, unknown>).filter((result) => method in result);
  };

  it('sets the hints once, per list and per resource, as the official modern client receives them', async () => {
    const client = await connectHttp('modern', await configured());
    expect(await client.listTools()).toMatchObject({ ttlMs: 30_000, cacheScope: 'public' });
    expect(await client.listPrompts()).toMatchObject({ ttlMs: 5_000, cacheScope: 'private' });
    expect(await client.listResources()).toMatchObject({ ttlMs: 5_000, cacheScope: 'public' });
    expect(await client.listResourceTemplates()).toMatchObject({ ttlMs: 5_000, cacheScope: 'public' });
    expect(await client.readResource({ uri: 'test://resource/1' })).toMatchObject({ ttlMs: 1_000, cacheScope: 'private' });
    expect(await client.readResource({ uri: 'test://per-user' })).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    expect(await client.readResource({ uri: 'test://shared' })).toMatchObject({ ttlMs: 1_000, cacheScope: 'public' });
  });

  it('keeps a resource\'s own hints off resources/list', async () => {
    const client = await connectHttp('modern', await configured());
    const { resources } = await client.listResources();
    expect(resources.find((resource) => resource.uri === 'test://per-user')).toEqual({ uri: 'test://per-user', name: 'per-user' });
  });

  it('sends none of them to a legacy client', async () => {
    const client = await connectHttp('legacy', await configured());
    await client.listTools();
    await client.listPrompts();
    await client.readResource({ uri: 'test://per-user' });
    for (const result of [...resultOnWire(client, 'tools'), ...resultOnWire(client, 'prompts'), ...resultOnWire(client, 'contents')]) {
      expect(result).not.toHaveProperty('ttlMs');
      expect(result).not.toHaveProperty('cacheScope');
    }
    expect(resultOnWire(client, 'contents')).toHaveLength(1);
  });

  it.each([
    [{ ttlMs: -1 }, 'caching.ttlMs'],
    [{ ttlMs: 1.5 }, 'caching.ttlMs'],
    [{ ttlMs: Number.MAX_SAFE_INTEGER + 1 }, 'caching.ttlMs'],
    [{ tools: { cacheScope: 'everyone' } }, 'caching.tools.cacheScope'],
    [{ read: { ttlMs: '60' } }, 'caching.read.ttlMs'],
  ])('refuses %j at createServer with a typed error naming %s', (caching, path) => {
    const create = () => createServer({ name: 'bad', version: '1', caching: caching as never });
    expect(create).toThrow(InvalidCachingError);
    expect(create).toThrow(path);
  });

  it('refuses bad per-resource hints at defineResource and registers nothing', async () => {
    server = createServer({ name: 'strict', version: '1' });
    const define = () => server!.defineResource('test://bad', { name: 'bad', caching: { ttlMs: -5 } }, (uri) => [{ uri, text: '' }]);
    expect(define).toThrow(InvalidCachingError);
    expect(define).toThrow('test://bad');
    const client = await connectHttp('modern', (await server.listenHttp({ port: 0 })).url);
    expect((await client.listResources()).resources).toEqual([]);
  });
});

describe('the official client in modern mode, its result validation on', () => {
  async function listAndRead(client: Client): Promise<void> {
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain('greeting');
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toContain('test://resource/1');
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await client.readResource({ uri: 'test://resource/1' })).contents).toEqual([
      { uri: 'test://resource/1', mimeType: 'text/plain', text: 'content of test://resource/1' },
    ]);
  }

  it('lists tools, prompts, resources and templates and reads a resource over stdio', async () => {
    await listAndRead(await connectStdio('modern'));
  });

  it('lists tools, prompts, resources and templates and reads a resource over HTTP', async () => {
    server = buildFixtureServer();
    await listAndRead(await connectHttp('modern', (await server.listenHttp({ port: 0 })).url));
  });
});
