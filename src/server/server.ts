/**
 * The public server: define tools, prompts and resources at any time,
 * broadcast list changes and resource updates, and serve clients of both eras
 * over stdio and Streamable HTTP. See limits.ts for the documented limits.
 */
import { checkCacheHint } from './caching.ts';
import { ServerCore, type ServerOptions } from './core.ts';
import type { HttpEndpoint } from './http-endpoint.ts';
import { createFetchHandler, type FetchMcpHandler } from './http-fetch.ts';
import { createNodeHandler, type NodeMcpHandler } from './http-node.ts';
import type { HttpHandlerOptions, HttpListenOptions, HttpServerHandle } from './http.ts';
import { listenHttp, mountedEndpoint } from './http.ts';
import type {
  PromptDefinition,
  PromptHandler,
  ResourceDefinition,
  ResourceReader,
  ToolDefinition,
  ToolHandler,
} from './registry.ts';
import type { ToolArguments } from './schema-args.ts';
import type { SchemaCheck } from './tool-schemas.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { checkPromptCompletions } from './completions.ts';
import { bindResourceTemplate, type ResourceTemplateDefinition, type ResourceTemplateReader } from './resource-templates.ts';
import { StdioConnection, type StdioConnectionHandle, type StdioOptions } from './stdio.ts';

/** An MCP server for both eras (what `createServer` returns): define tools, prompts and resources, announce their changes, and serve them over stdio or Streamable HTTP. */
export interface McpServer {
  /** The server's name, as `serverInfo` gives it. */
  readonly name: string;
  /**
   * Defines or replaces a tool. `inputSchema` (and `outputSchema`) are compiled once (JSON Schema 2020-12 by
   * default). A call's arguments are checked against `inputSchema` before `handler` runs, and arguments that do not
   * fit get a tool error (`isError: true`) naming the path and the problem; `handler`'s `args` are typed from that
   * schema when it is written inline (see `ToolArguments`). A successful result whose `structuredContent` is missing
   * or does not fit the `outputSchema` is sent as a tool error saying why. Throws InvalidToolSchemaError, registering
   * nothing, when a schema does not compile.
   */
  defineTool<const Schema extends JsonObject>(name: string, definition: ToolDefinition<Schema>, handler: ToolHandler<ToolArguments<Schema>>): void;
  /** Removes a tool; false if there was none of that name. Announce it with notifyToolsListChanged. */
  removeTool(name: string): boolean;
  /** Throws InvalidPromptError, registering nothing, when an argument's `complete` is not a function. */
  definePrompt(name: string, definition: PromptDefinition, handler: PromptHandler): void;
  /** Removes a prompt; false if there was none of that name. Announce it with notifyPromptsListChanged. */
  removePrompt(name: string): boolean;
  /** Throws InvalidCachingError (registering nothing) when `definition.caching` is malformed. */
  defineResource(uri: string, definition: ResourceDefinition, read: ResourceReader): void;
  /** Removes a resource; false if there was none at that URI. Announce it with notifyResourcesListChanged. */
  removeResource(uri: string): boolean;
  /**
   * An RFC 6570 (level 1–3) resource template, listed by `resources/templates/list`; a `resources/read` of a URI
   * no fixed resource has goes to the first template (in uriTemplate order) it matches, with the variables
   * decoded. Replaces a template of the same `uriTemplate`. Throws InvalidUriTemplateError or InvalidCachingError,
   * registering nothing, when the template or its definition is malformed. Announce it with notifyResourcesListChanged.
   */
  defineResourceTemplate(uriTemplate: string, definition: ResourceTemplateDefinition, read: ResourceTemplateReader): void;
  /** False if no template has this `uriTemplate`; announce the removal with notifyResourcesListChanged. */
  removeResourceTemplate(uriTemplate: string): boolean;
  /** Legacy: every initialized session. Modern: every listen stream that asked for tools. */
  notifyToolsListChanged(): void;
  /** Legacy: every initialized session. Modern: every listen stream that asked for prompts. */
  notifyPromptsListChanged(): void;
  /** Legacy: every initialized session. Modern: every listen stream that asked for resources. */
  notifyResourcesListChanged(): void;
  /** Legacy sessions subscribed to `uri`, and listen streams whose honored filter names it. */
  notifyResourceUpdated(uri: string): void;
  /** Serves one connection over stdio (this process's stdin/stdout by default). */
  serveStdio(options?: StdioOptions): StdioConnectionHandle;
  /** Streamable HTTP on node:http, both eras on one endpoint; resolves once listening. */
  listenHttp(options?: HttpListenOptions): Promise<HttpServerHandle>;
  /**
   * Streamable HTTP (both eras) as a Node `(req, res, parsedBody?)` handler,
   * to mount at any path of node:http, Express, Fastify…; one endpoint with
   * its own legacy sessions, closed by `close()` here or on the handler.
   */
  nodeHandler(options?: HttpHandlerOptions): NodeMcpHandler;
  /** The same endpoint as a fetch-style `(request: Request) => Promise<Response>` handler (Hono, Bun, Deno, workers). */
  fetchHandler(options?: HttpHandlerOptions): FetchMcpHandler;
  /** Open listen streams right now (for observability and tests). */
  readonly openStreamCount: number;
  /** Live legacy sessions right now (stdio connections opened with initialize, HTTP sessions). */
  readonly openSessionCount: number;
  /**
   * A graceful shutdown: admits no new request (-32000; HTTP 503 with Retry-After), ends every listen stream gracefully
   * (`resultType: 'complete'`) while the requests already running finish (up to `drainTimeoutMs`, then their signals
   * abort), then every session and transport; mounted handlers answer 503 afterwards.
   */
  close(): Promise<void>;
  /** `close()`, for `await using server = createServer(…)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** A server for both eras; serve it with `serveStdio`, `listenHttp`, or mount `nodeHandler` / `fetchHandler` in an app. */
export function createServer(options: ServerOptions): McpServer {
  const core = new ServerCore(options);
  const connections = new Set<StdioConnection>();
  const httpServers = new Set<HttpServerHandle>();
  const mounted = new Set<HttpEndpoint>();
  const mount = (handlerOptions: HttpHandlerOptions | undefined): HttpEndpoint => {
    const endpoint = mountedEndpoint(core, handlerOptions ?? {});
    mounted.add(endpoint);
    return endpoint;
  };
  let closing: Promise<void> | undefined;
  return {
    name: options.name,
    defineTool(name, definition, handler) {
      const checkArguments = core.toolSchemas.compile(name, definition.inputSchema);
      let checkStructured: SchemaCheck | undefined;
      try {
        if (definition.outputSchema !== undefined) checkStructured = core.toolSchemas.compile(name, definition.outputSchema, 'structured content');
      } catch (error) {
        // A failed definition leaves nothing compiled behind.
        core.toolSchemas.release(name);
        throw error;
      }
      // The registry calls the handler only with arguments checkArguments has passed against this very schema,
      // which is what ToolArguments<Schema> describes; the registry itself holds tools of every schema.
      core.registry.tools.set(name, definition, { handler: handler as ToolHandler, checkArguments, checkStructured });
    },
    removeTool(name) {
      core.toolSchemas.release(name);
      return core.registry.tools.delete(name);
    },
    definePrompt(name, definition, handler) {
      checkPromptCompletions(name, definition);
      core.registry.prompts.set(name, definition, handler);
    },
    removePrompt: (name) => core.registry.prompts.delete(name),
    defineResource(uri, definition, read) {
      checkCacheHint(definition.caching, `resource ${uri}: caching`);
      core.registry.resources.set(uri, definition, read);
    },
    removeResource: (uri) => core.registry.resources.delete(uri),
    defineResourceTemplate(uriTemplate, definition, read) {
      core.registry.resourceTemplates.set(uriTemplate, definition, bindResourceTemplate(uriTemplate, definition, read));
    },
    removeResourceTemplate: (uriTemplate) => core.registry.resourceTemplates.delete(uriTemplate),
    notifyToolsListChanged: () => core.bus.publish({ type: 'tools_list_changed' }),
    notifyPromptsListChanged: () => core.bus.publish({ type: 'prompts_list_changed' }),
    notifyResourcesListChanged: () => core.bus.publish({ type: 'resources_list_changed' }),
    notifyResourceUpdated: (uri) => core.bus.publish({ type: 'resource_updated', uri }),
    serveStdio(stdioOptions) {
      const connection = new StdioConnection(core, stdioOptions);
      connections.add(connection);
      void connection.closed.then(() => connections.delete(connection));
      return connection;
    },
    async listenHttp(httpOptions) {
      const handle = await listenHttp(core, httpOptions ?? {});
      httpServers.add(handle);
      return handle;
    },
    nodeHandler: (handlerOptions) => createNodeHandler(mount(handlerOptions)),
    fetchHandler: (handlerOptions) => createFetchHandler(mount(handlerOptions)),
    get openStreamCount() {
      return core.streams.size;
    },
    get openSessionCount() {
      return core.sessions.size;
    },
    close() {
      closing ??= (async () => {
        await core.close();
        await Promise.all([...connections].map((connection) => connection.close()));
        await Promise.all([...httpServers].map((handle) => handle.close()));
        await Promise.all([...mounted].map((endpoint) => endpoint.close()));
      })();
      return closing;
    },
    [Symbol.asyncDispose]() {
      return this.close();
    },
  };
}
