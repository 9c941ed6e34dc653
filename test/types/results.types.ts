/** Type tests for the client's typed results (see type-tests.test.ts). */
import { expectTypeOf } from 'vitest';
import type {
  CallToolResult,
  CompleteResult,
  ContentBlock,
  GetPromptResult,
  JsonObject,
  McpClient,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  ServerInfo,
  Tool,
} from '../../src/index.ts';

declare const client: McpClient;

expectTypeOf(client.listTools()).resolves.toEqualTypeOf<Tool[]>();
expectTypeOf(client.listPrompts()).resolves.toEqualTypeOf<Prompt[]>();
expectTypeOf(client.listResources()).resolves.toEqualTypeOf<Resource[]>();
expectTypeOf(client.listResourceTemplates()).resolves.toEqualTypeOf<ResourceTemplate[]>();
expectTypeOf(client.callTool('echo', { text: 'x' })).resolves.toEqualTypeOf<CallToolResult>();
expectTypeOf(client.getPrompt('greeting')).resolves.toEqualTypeOf<GetPromptResult>();
expectTypeOf(client.readResource('test://a')).resolves.toEqualTypeOf<ReadResourceResult>();
expectTypeOf(client.complete({ ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: 'b' } })).resolves.toEqualTypeOf<CompleteResult>();
expectTypeOf(client.serverInfo).toEqualTypeOf<ServerInfo | undefined>();
expectTypeOf(client.serverCapabilities).toEqualTypeOf<ServerCapabilities | undefined>();

declare const tool: Tool;
expectTypeOf(tool.name).toEqualTypeOf<string>();
expectTypeOf(tool.inputSchema).toEqualTypeOf<JsonObject>();
// @ts-expect-error: a misspelt field is a compile error, not `unknown`
void tool.nmae;
// A typed result still goes where a JSON object goes.
expectTypeOf(tool).toExtend<JsonObject>();

declare const result: CallToolResult;
expectTypeOf(result.content).toEqualTypeOf<ContentBlock[]>();
const block = result.content[0]!;
if (block.type === 'text') expectTypeOf(block.text).toEqualTypeOf<string>();
if (block.type === 'image') expectTypeOf(block.mimeType).toEqualTypeOf<string>();
// @ts-expect-error: a content block's type is one of MCP's
if (block.type === 'video') void block;
// @ts-expect-error: a completion reference is a prompt or a resource template
void client.complete({ ref: { type: 'ref/tool', name: 'p' }, argument: { name: 'a', value: 'b' } });
