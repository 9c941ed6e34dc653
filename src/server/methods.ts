/**
 * The methods both eras share: list, call, get and read over the registry.
 * Results here carry no era-specific fields; the routers add them.
 */
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { canComplete, complete } from './completions.ts';
import { InvalidParamsError, MethodNotFoundError, MissingClientCapabilityError } from './errors.ts';
import type { Registry } from './registry.ts';
import type { SchemaCheck } from './tool-schemas.ts';
import { callHandler, type RequestContext } from './request-context.ts';
import { toolFailure } from './tool-failure.ts';
import { isJsonObject } from './json-values.ts';
import { listResourceTemplates, readResource } from './resource-templates.ts';

function stringParam(params: JsonObject | undefined, key: string): string {
  const value = params?.[key];
  if (typeof value !== 'string' || value === '') throw new InvalidParamsError(`Invalid params: ${key} must be a non-empty string`);
  return value;
}

export function listTools(registry: Registry, params: JsonObject | undefined, pageSize: number): JsonObject {
  const { items, nextCursor } = registry.tools.page(params?.cursor, pageSize);
  const tools = items.map(({ key, definition }) => {
    const { requiresClientCapabilities: _needs, ...wire } = definition;
    return { name: key, ...wire };
  });
  return nextCursor === undefined ? { tools } : { tools, nextCursor };
}

export async function callTool(registry: Registry, params: JsonObject | undefined, context: RequestContext): Promise<JsonObject> {
  const name = stringParam(params, 'name');
  const entry = registry.tools.get(name);
  if (!entry) throw new InvalidParamsError(`Unknown tool: ${name}`);
  const args = params?.arguments ?? {};
  if (!isJsonObject(args)) throw new InvalidParamsError('Invalid params: arguments must be an object');
  const needs = entry.definition.requiresClientCapabilities;
  if (needs) {
    const missing = Object.fromEntries(Object.entries(needs).filter(([key]) => context.clientCapabilities[key] === undefined));
    if (Object.keys(missing).length > 0) throw new MissingClientCapabilityError(missing);
  }
  // Arguments that do not fit the schema are the tool's failure, not the protocol's: the model reads it and can retry.
  const invalid = entry.handler.checkArguments(args);
  if (invalid !== undefined) return { content: [{ type: 'text', text: invalid }], isError: true };
  const result: JsonObject = { ...(await callHandler(context, (call) => entry.handler.handler(args, call))) };
  return structuredChecked(name, entry.handler.checkStructured, result);
}

/**
 * A successful, complete result of a tool with an `outputSchema` must carry conforming `structuredContent` (MCP
 * says the server MUST): one that does not goes out as the tool's failure, saying why, so no client reads a shape
 * the tool did not promise and the tool's author sees the fault.
 */
function structuredChecked(name: string, check: SchemaCheck | undefined, result: JsonObject): JsonObject {
  if (check === undefined || result.isError === true || (result.resultType !== undefined && result.resultType !== 'complete')) return result;
  const problem =
    result.structuredContent === undefined ? `Invalid structured content for tool ${name}: it has an outputSchema and returned none` : check(result.structuredContent);
  return problem === undefined ? result : { content: [{ type: 'text', text: problem }], isError: true };
}

export function listPrompts(registry: Registry, params: JsonObject | undefined, pageSize: number): JsonObject {
  const { items, nextCursor } = registry.prompts.page(params?.cursor, pageSize);
  const prompts = items.map(({ key, definition }) => {
    if (definition.arguments === undefined) return { name: key, ...definition };
    // A completion callback is the server's own; the list shows only what the argument is.
    const args = definition.arguments.map(({ complete: _complete, ...argument }) => argument);
    return { name: key, ...definition, arguments: args };
  });
  return nextCursor === undefined ? { prompts } : { prompts, nextCursor };
}

export async function getPrompt(registry: Registry, params: JsonObject | undefined, context: RequestContext): Promise<JsonObject> {
  const name = stringParam(params, 'name');
  const entry = registry.prompts.get(name);
  if (!entry) throw new InvalidParamsError(`Unknown prompt: ${name}`);
  const raw = params?.arguments ?? {};
  if (!isJsonObject(raw) || Object.values(raw).some((value) => typeof value !== 'string')) {
    throw new InvalidParamsError('Invalid params: prompt arguments must be an object of strings');
  }
  const args = raw as Record<string, string>;
  for (const argument of entry.definition.arguments ?? []) {
    if (argument.required && args[argument.name] === undefined) {
      throw new InvalidParamsError(`Invalid params: prompt ${name} needs argument ${argument.name}`);
    }
  }
  return { ...(await callHandler(context, (call) => entry.handler(args, call))) };
}

export function listResources(registry: Registry, params: JsonObject | undefined, pageSize: number): JsonObject {
  const { items, nextCursor } = registry.resources.page(params?.cursor, pageSize);
  const resources = items.map(({ key, definition }) => {
    const { caching: _hints, ...wire } = definition;
    return { uri: key, ...wire };
  });
  return nextCursor === undefined ? { resources } : { resources, nextCursor };
}

/** `resources/subscribe` and `unsubscribe` (legacy) need a URI; the resource need not exist yet. */
export const uriParam = (params: JsonObject | undefined): string => stringParam(params, 'uri');

type SharedMethod = (registry: Registry, params: JsonObject | undefined, pageSize: number, context: RequestContext) => Promise<JsonObject>;

const SHARED_METHODS = new Map<string, SharedMethod>([
  ['tools/list', async (registry, params, pageSize) => listTools(registry, params, pageSize)],
  ['tools/call', (registry, params, _pageSize, context) => callTool(registry, params, context).catch(toolFailure)],
  ['prompts/list', async (registry, params, pageSize) => listPrompts(registry, params, pageSize)],
  ['prompts/get', (registry, params, _pageSize, context) => getPrompt(registry, params, context)],
  ['resources/list', async (registry, params, pageSize) => listResources(registry, params, pageSize)],
  ['resources/templates/list', async (registry, params, pageSize) => listResourceTemplates(registry, params, pageSize)],
  ['resources/read', (registry, params, _pageSize, context) => readResource(registry, stringParam(params, 'uri'), context)],
  ['completion/complete', async (registry, params, _pageSize, context) => {
    // The capability follows the registry: advertised while something can complete, and only then answered.
    if (!canComplete(registry)) throw new MethodNotFoundError('completion/complete');
    return complete(registry, params, context);
  }],
]);

/** The reads a change notification tells clients to repeat: answered once the bus settled, so they see the change. */
const REFETCHED_READS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);

/**
 * Answers the methods both eras share (lists, calls, gets, reads); undefined
 * for any other method, which the era's router answers itself. `settled`
 * (the bus's read barrier) is awaited first for the refetched reads.
 */
export function answerShared(
  method: string,
  registry: Registry,
  params: JsonObject | undefined,
  pageSize: number,
  context: RequestContext,
  settled: (() => Promise<void>) | undefined,
): Promise<JsonObject> | undefined {
  const answer = SHARED_METHODS.get(method);
  if (answer === undefined) return undefined;
  const run = () => answer(registry, params, pageSize, context);
  return settled !== undefined && REFETCHED_READS.has(method) ? settled().then(run) : run();
}
