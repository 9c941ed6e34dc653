/**
 * A server whose results lack what MCP defines, from the scripted peer over
 * the in-memory pair (no real server sends a tool without a name on cue):
 * the typed helpers reject with InvalidResultError naming where and what,
 * extra fields pass through, and a malformed serverInfo fails the
 * negotiation in both eras.
 */
import { describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { InvalidResultError, isMcpActorsError } from '../../src/protocol/errors.ts';
import type { JsonObject } from '../../src/protocol/jsonrpc.ts';
import { scriptedMemory } from '../fixtures/scripted-memory.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { clients } = closedAfterEach({ clients: [] as McpClient[] });

async function scripted(era: 'modern' | 'legacy' = 'modern', args: string[] = []): Promise<McpClient> {
  const client = createClient({ transport: scriptedMemory(['--era', era, ...args]), reconnect: false });
  clients.push(client);
  await client.connect();
  return client;
}

/** From now on the peer answers `method` with `result`. */
const answer = (client: McpClient, method: string, result: JsonObject) => client.request('script/answer', { method, result });

const inputSchema = { type: 'object' };

/** What a rejection carries, for one assertion. */
async function rejection(promise: Promise<unknown>) {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(InvalidResultError);
  const invalid = error as InvalidResultError;
  expect(isMcpActorsError(invalid)).toBe(true);
  return { code: invalid.code, method: invalid.method, path: invalid.path, expected: invalid.expected, actual: invalid.actual, message: invalid.message };
}

describe('results that lack what MCP defines', () => {
  it('a tool without a name rejects listTools with InvalidResultError naming the tool', async () => {
    const client = await scripted();
    await answer(client, 'tools/list', { tools: [{ name: 'fine', inputSchema }, { description: 'nameless', inputSchema }] });
    expect(await rejection(client.listTools())).toEqual({
      code: 'invalid_result',
      method: 'tools/list',
      path: 'tools[1].name',
      expected: 'a string',
      actual: undefined,
      message: "tools/list: the server's tools[1].name is nothing, expected a string",
    });
  });

  it('a tool whose optional field has the wrong type rejects too (the type promises it)', async () => {
    const client = await scripted('legacy');
    await answer(client, 'tools/list', { tools: [{ name: 't', inputSchema, annotations: { readOnlyHint: 'yes' } }] });
    expect(await rejection(client.listTools())).toMatchObject({ path: 'tools[0].annotations.readOnlyHint', expected: 'a boolean', actual: 'yes' });
  });

  it('content that is not an array rejects callTool', async () => {
    const client = await scripted();
    await answer(client, 'tools/call', { content: { type: 'text', text: 'not in an array' } });
    expect(await rejection(client.callTool('any'))).toMatchObject({ method: 'tools/call', path: 'result.content', expected: 'an array' });
  });

  it('a content block of no MCP type rejects callTool', async () => {
    const client = await scripted('legacy');
    await answer(client, 'tools/call', { content: [{ type: 'text', text: 'ok' }, { type: 'video', url: 'x' }] });
    expect(await rejection(client.callTool('any'))).toMatchObject({ path: 'result.content[1].type', actual: 'video' });
  });

  it('a prompt message without a role and resource contents with neither text nor blob reject', async () => {
    const client = await scripted();
    await answer(client, 'prompts/get', { messages: [{ content: { type: 'text', text: 'hi' } }] });
    expect(await rejection(client.getPrompt('p'))).toMatchObject({ method: 'prompts/get', path: 'result.messages[0].role' });
    await answer(client, 'resources/read', { contents: [{ uri: 'test://a' }] });
    expect(await rejection(client.readResource('test://a'))).toMatchObject({ method: 'resources/read', path: 'result.contents[0].blob' });
  });

  it('fields MCP does not name pass through, typed results keep them', async () => {
    const client = await scripted();
    await answer(client, 'tools/list', { tools: [{ name: 'extended', inputSchema, 'x-vendor': { tier: 2 } }] });
    const [tool] = await client.listTools();
    expect(tool).toEqual({ name: 'extended', inputSchema, 'x-vendor': { tier: 2 } });
    await answer(client, 'tools/call', { content: [{ type: 'text', text: 'ok', 'x-extra': true }], structuredContent: [1, 2], extra: 'kept' });
    const result = await client.callTool('extended');
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'ok', 'x-extra': true }], structuredContent: [1, 2], extra: 'kept' });
  });

  it('a page of 160,000 resources is listed whole (past where spreading it into push() overflows the call stack)', async () => {
    const client = await scripted();
    await answer(client, 'resources/list', { resources: Array.from({ length: 160_000 }, () => ({ uri: 'u', name: 'n' })) });
    const resources = await client.listResources();
    expect(resources).toHaveLength(160_000);
    expect(resources.at(-1)).toEqual({ uri: 'u', name: 'n' });
  });

  it('a page without its list rejects listTools instead of reading as an empty list', async () => {
    const client = await scripted();
    await answer(client, 'tools/list', { nextCursor: '' });
    expect(await rejection(client.listTools())).toMatchObject({ method: 'tools/list', path: 'tools', expected: 'an array', actual: undefined });
  });

  it('a server that ignores the cursor (the same page and cursor again) rejects at the second page, not at the page limit', async () => {
    const client = await scripted('legacy');
    await answer(client, 'prompts/list', { prompts: [{ name: 'again' }], nextCursor: 'next' });
    expect(await rejection(client.listPrompts())).toMatchObject({ method: 'prompts/list', path: 'nextCursor', actual: 'next' });
    const { requests } = (await client.request('script/requests', {})) as { requests: { method: string }[] };
    expect(requests.filter((request) => request.method === 'prompts/list')).toHaveLength(2);
  });

  it.each(['modern', 'legacy'] as const)('a serverInfo without a version fails the negotiation (%s)', async (era) => {
    const client = createClient({ transport: scriptedMemory(['--era', era, '--server-info', '{"name":"versionless"}']), reconnect: false });
    clients.push(client);
    expect(await rejection(client.connect())).toMatchObject({
      method: era === 'modern' ? 'server/discover' : 'initialize',
      path: 'serverInfo.version',
    });
  });
});
