/**
 * The server side of mcp-actors: an MCP server for both protocol eras whose
 * legacy sessions and modern listen streams are xstate actors.
 *
 * ```ts
 * const server = createServer({ name: 'demo', version: '1.0.0' });
 * server.defineTool('echo', { description: 'Echo', inputSchema: { type: 'object' } }, (args, ctx) => {
 *   void ctx.progress(1, 1); // only to the caller, only with a progressToken
 *   return { content: [{ type: 'text', text: String(args.text) }] };
 * });
 * server.serveStdio();                          // or:
 * await server.listenHttp({ port: 3000 });      // http://127.0.0.1:3000/mcp, or mount in an app:
 * app.all('/mcp', server.nodeHandler());        // Express, node:http…; server.fetchHandler() for Hono, Bun…
 * server.notifyToolsListChanged();              // every session / every stream that asked
 * await server.close();                         // listen streams end with resultType 'complete'
 * ```
 *
 * Several nodes share change events through `createServer({ bus })`. Limits
 * and what happens past them are documented in limits.ts.
 */
export { createServer, type McpServer } from './server.ts';
export type { ServerOptions, ServerFeatures } from './core.ts';
export type { HttpHandlerOptions, HttpListenOptions, HttpServerHandle } from './http.ts';
export type { NodeMcpHandler } from './http-node.ts';
export type { FetchMcpHandler } from './http-fetch.ts';
export type { StdioOptions, StdioConnectionHandle, StdioClosedReason } from './stdio.ts';
export type { QueueOverflow } from './outbox.ts';
export { createInProcessBus, type ChangeBus, type ChangeEvent, type ConcreteChange, type ChangeDelivery, type ChangeHandler } from './bus.ts';
export type { RemoteChangeHook } from './change-applier.ts';
export { DEFAULT_LIMITS, type ServerLimits } from './limits.ts';
export { RETRY_AFTER_SECONDS } from './http-io.ts';
export { SERVER_REQUEST_CHANNEL, type ServerRequestTrace } from './request-trace.ts';
export { SERVER_SESSION_CHANNEL, SERVER_STREAM_CHANNEL, type ServerSessionTrace, type ServerStreamTrace, type ServerTransport } from './lifecycle-trace.ts';
export { DEFAULT_CACHING, type CachingOptions, type CacheHint, type CacheScope, type CacheableResult } from './caching.ts';
export { InvalidCachingError, InvalidPromptError, InvalidToolSchemaError, InvalidUriTemplateError } from './definition-errors.ts';
export type { ResourceTemplateDefinition, ResourceTemplateReader } from './resource-templates.ts';
export { MAX_COMPLETION_VALUES, type CompleteCallback, type CompletionContext } from './completions.ts';
export type { RequestContext } from './request-context.ts';
export type { LogLevel } from '../protocol/log-level.ts';
export type { SchemaValue, ToolArguments } from './schema-args.ts';
export type {
  ToolDefinition,
  ToolHandler,
  ToolResult,
  PromptDefinition,
  PromptHandler,
  PromptResult,
  PromptArgument,
  ResourceDefinition,
  ResourceReader,
  ResourceContents,
} from './registry.ts';
export { isMcpActorsError, McpActorsError } from '../../machines/errors.ts';
export {
  WireError,
  ParseFailure,
  InvalidRequestError,
  InvalidEnvelopeError,
  UnsupportedVersionError,
  HeaderMismatchError,
  ServerClosingError,
  NotInitializedError,
  InternalFailure,
  InvalidParamsError,
  MethodNotFoundError,
  MissingClientCapabilityError,
  ResourceNotFoundError,
  LimitExceededError,
  SlowConsumerError,
  UrlElicitationRequiredError,
  type RequiredUrlElicitation,
} from './errors.ts';
export {
  InvalidClientAnswerError,
  InvalidRequestStateError,
  ClientRequestRefusedError,
  ClientRequestTimeoutError,
  ClientRequestCancelledError,
  type RequestStateProblem,
} from './errors.ts';
export { UndeclaredClientCapabilityError } from './client-input.ts';
export type {
  ClientInput,
  AskOptions,
  ElicitParams,
  ElicitFormParams,
  ElicitUrlParams,
  ElicitResult,
  CreateMessageParams,
  CreateMessageResult,
  SamplingMessage,
  ListRootsResult,
  Root,
} from './client-input.ts';
export { InputRequiredSignal } from './input-round.ts';
export {
  inputRequired,
  isInputRequired,
  InvalidHandlerStateError,
  InvalidInputRequestError,
  type InputRequiredResult,
  type InputRequest,
  type InputRequests,
} from './input-required.ts';
export type { JsonValue } from '../protocol/mcp-types.ts';
export { newRequestStateKey } from './request-state.ts';
export type { StreamEndReason } from './listen-stream.ts';
export type { Inspector } from '../runtime/actor-options.ts';
/** @deprecated The same type as `Inspector`, under its earlier name. */
export type { Inspector as StreamInspector } from '../runtime/actor-options.ts';
export type { SessionEndReason } from './legacy-session.ts';
