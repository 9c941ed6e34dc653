/**
 * Typed results against the official server 2.4.0 (a stdio child), in both
 * eras: what the client hands out as Tool, Prompt, Resource,
 * CallToolResult, GetPromptResult, ReadResourceResult, ServerInfo and
 * ServerCapabilities passed the shape checks and carries the fields the
 * server sent.
 */
import { describe, expect, it } from 'vitest';
import { sharedOfficialRecorded } from './official-recorded.ts';

// Both tests of an era only read and call: they share one client (one server child) per era.
const connect = sharedOfficialRecorded();

describe.each(['modern', 'legacy'] as const)('typed results from the official server (%s era)', (era) => {
  it('lists tools, prompts and resources with their fields', async () => {
    const { client } = await connect(era, ['--name', 'typed']);
    expect(client.era).toBe(era);
    expect(client.serverInfo?.name).toBe('typed');
    expect(typeof client.serverInfo?.version).toBe('string');
    expect(client.serverCapabilities?.tools?.listChanged).toBe(true);
    expect(client.serverCapabilities?.resources?.subscribe).toBe(true);

    const tools = await client.listTools();
    const echo = tools.find((tool) => tool.name === 'echo');
    expect(echo?.description).toBe('Returns its text');
    expect(echo?.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
    expect(tools.map((tool) => tool.name)).toContain('filler-5');

    const prompts = await client.listPrompts();
    expect(prompts.find((prompt) => prompt.name === 'greeting')?.arguments?.[0]).toMatchObject({ name: 'name' });

    const resources = await client.listResources();
    expect(resources.map((resource) => [resource.uri, resource.name])).toContainEqual(['test://resource/2', 'resource-2']);
  });

  it('calls a tool, gets a prompt and reads a resource, typed', async () => {
    const { client } = await connect(era, ['--name', 'typed']);
    const called = await client.callTool('echo', { text: 'typed hello' });
    expect(called.isError ?? false).toBe(false);
    const [block] = called.content;
    expect(block?.type).toBe('text');
    if (block?.type === 'text') expect(block.text).toBe('typed hello');

    const prompt = await client.getPrompt('greeting', { name: 'Ada' });
    const message = prompt.messages[0];
    expect(message?.role).toBe('user');
    expect(message?.content).toEqual({ type: 'text', text: 'Hello, Ada!' });

    const read = await client.readResource('test://resource/3');
    const [contents] = read.contents;
    expect(contents?.uri).toBe('test://resource/3');
    expect(contents && 'text' in contents ? contents.text : undefined).toBe('Resource 3');
  });
});
