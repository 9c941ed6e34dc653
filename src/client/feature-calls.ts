/**
 * The server's features as typed calls: its tools, prompts, resources and
 * completions, and the legacy era's direct resource subscriptions. Each
 * result is checked against what MCP defines before a caller reads it; an
 * input-required result is answered and the call retried. `McpClient`
 * implements `FeatureCalls` by handing each call to `featureCalls(…)`:
 * the documentation lives on the interface, and the client's methods show it
 * (TypeScript and the README's API reference take a member's TSDoc from the
 * interface it implements).
 */
import { HttpStatusError } from '../protocol/errors.ts';
import { ErrorCode, type JsonObject } from '../protocol/jsonrpc.ts';
import type { CallToolResult, CompleteParams, CompleteResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool } from '../protocol/mcp-types.ts';
import { checkedList, checkedResult, type ListItems } from '../protocol/result-shapes.ts';
import { DEFAULT_MAX_INPUT_ROUNDS, requestWithInputs } from './input-required.ts';
import { collectPages, LIST_METHODS, type ListName } from './pages.ts';
import type { RequestOptions } from './ports.ts';
import type { ServerRequestHandlers } from './server-requests.ts';
import { ToolOutputChecks } from './tool-output-checks.ts';

/** The typed calls of the server's features, as `McpClient` offers them. */
export interface FeatureCalls {
  /**
   * Every tool, all pages; rejects with InvalidResultError when one lacks what MCP defines (extra fields pass
   * through), a page lacks its list or a cursor comes twice, and with ListTooLongError or TooManyPagesError past
   * 1,000,000 items or 10,000 pages. The tools' output schemas are what `callTool` checks structured results against from then on.
   */
  listTools(options?: RequestOptions): Promise<Tool[]>;

  /** Every prompt, all pages, checked as `listTools` checks tools. */
  listPrompts(options?: RequestOptions): Promise<Prompt[]>;

  /** Every resource, all pages, checked as `listTools` checks tools. */
  listResources(options?: RequestOptions): Promise<Resource[]>;

  /** Every resource template, all pages, checked as `listTools` checks tools. */
  listResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]>;

  /**
   * Reads a resource; an input-required result is answered and retried (see `callTool`).
   * Rejects with InvalidResultError when the result lacks what MCP defines.
   */
  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult>;

  /** Suggestions for an argument of a prompt or a resource template (`completion/complete`); checked as `callTool`'s result is. */
  complete(params: CompleteParams, options?: RequestOptions): Promise<CompleteResult>;

  /**
   * Calls a tool. Over modern HTTP a server refuses a call whose
   * `Mcp-Param-*` headers are missing or stale with HeaderMismatch; as the
   * spec advises, the tool list is then fetched again (the transport learns
   * the headers from it) and the call retried once.
   *
   * Modern era: an input-required result is answered with the handlers
   * registered by `onRequest` and the call retried (a new request) with
   * `inputResponses` and the server's `requestState`, up to `maxInputRounds`
   * times; `options.signal` aborts the handlers and the call. A requested
   * input with no handler ends the call with InputHandlerMissingError.
   *
   * A result without the fields MCP defines (`content` an array of content
   * blocks) rejects with InvalidResultError, and so does a successful result
   * of a tool whose `outputSchema` (from the last `listTools()`) its
   * `structuredContent` is missing or does not fit; a failed tool is a result
   * with `isError: true`, not a rejection.
   */
  callTool(name: string, args?: JsonObject, options?: RequestOptions): Promise<CallToolResult>;

  /**
   * Gets a prompt; an input-required result is answered and retried (see `callTool`).
   * Rejects with InvalidResultError when the result lacks what MCP defines.
   */
  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<GetPromptResult>;

  /**
   * Legacy era: one direct `resources/subscribe`. Not refcounted with
   * notification listeners: the server keeps one subscription per URI per
   * session, so `unsubscribeResource` also silences listeners on that URI.
   */
  subscribeResource(uri: string, options?: RequestOptions): Promise<JsonObject>;

  /** Legacy era: one direct `resources/unsubscribe`, the counterpart of `subscribeResource` (not refcounted either). */
  unsubscribeResource(uri: string, options?: RequestOptions): Promise<JsonObject>;
}

/**
 * What the typed calls need of the client: its requests and its tool list (the client's own methods, so a subclass
 * that overrides them sees every typed call), its answers to input requests, its error reports.
 */
export interface FeaturePort {
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject>;
  /** Fetches the tool list again when a `tools/call` met HeaderMismatch (the transport learns the headers from it). */
  listTools(options?: RequestOptions): Promise<Tool[]>;
  readonly serverRequests: ServerRequestHandlers;
  /** Hears a tool output schema that cannot be compiled (that tool's results then go unchecked). */
  report(error: Error): void;
}

/** The typed calls on `port`; `maxInputRounds` bounds the input-required rounds of one call (default DEFAULT_MAX_INPUT_ROUNDS). */
export function featureCalls(port: FeaturePort, { maxInputRounds }: { maxInputRounds?: number | undefined }): FeatureCalls {
  const toolOutputs = new ToolOutputChecks((error) => port.report(error));

  const listAll = async <L extends ListName>(list: L, options?: RequestOptions): Promise<ListItems[L][]> => {
    const items = await collectPages(list, (method, params) => port.request(method, params, options));
    return checkedList(list, LIST_METHODS[list], items);
  };

  const withInputs = (method: string, params: JsonObject, options: RequestOptions | undefined, send: (params: JsonObject) => Promise<JsonObject>) =>
    requestWithInputs(method, params, send, port.serverRequests, {
      maxRounds: maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS,
      ...(options?.signal ? { signal: options.signal } : {}),
    });

  const features: FeatureCalls = {
    async listTools(options) {
      const tools = await listAll('tools', options);
      toolOutputs.learn(tools);
      return tools;
    },
    listPrompts: (options) => listAll('prompts', options),
    listResources: (options) => listAll('resources', options),
    listResourceTemplates: (options) => listAll('resourceTemplates', options),
    async readResource(uri, options) {
      const result = await withInputs('resources/read', { uri }, options, (params) => port.request('resources/read', params, options));
      return checkedResult('resources/read', result);
    },
    async complete(params, options) {
      return checkedResult('completion/complete', await port.request('completion/complete', { ...params }, options));
    },
    async callTool(name, args = {}, options) {
      const result = await withInputs('tools/call', { name, arguments: args }, options, (params) => callToolOnce(params, options));
      const checked = checkedResult('tools/call', result);
      await toolOutputs.check(name, checked);
      return checked;
    },
    async getPrompt(name, args = {}, options) {
      const result = await withInputs('prompts/get', { name, arguments: args }, options, (params) => port.request('prompts/get', params, options));
      return checkedResult('prompts/get', result);
    },
    subscribeResource: (uri, options) => port.request('resources/subscribe', { uri }, options),
    unsubscribeResource: (uri, options) => port.request('resources/unsubscribe', { uri }, options),
  };

  const callToolOnce = async (params: JsonObject, options: RequestOptions | undefined): Promise<JsonObject> => {
    try {
      return await port.request('tools/call', params, options);
    } catch (error) {
      if (!(error instanceof HttpStatusError) || error.rpcError?.code !== ErrorCode.HeaderMismatch) throw error;
      await port.listTools(options);
      return port.request('tools/call', params, options);
    }
  };

  return features;
}
