/** The server side of mcp-actors. */
export { createServer, type McpServer } from './server.ts';
export type { ServerOptions, ServerFeatures } from './core.ts';
export type { HttpListenOptions, HttpServerHandle } from './http.ts';
export type { StdioOptions, StdioConnectionHandle } from './stdio.ts';
export { createInProcessBus, type ChangeBus, type ChangeEvent } from './bus.ts';
export { DEFAULT_LIMITS, type ServerLimits } from './limits.ts';
export type { RequestContext, LogLevel } from './request-context.ts';
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
export {
  WireError,
  InvalidParamsError,
  MethodNotFoundError,
  MissingClientCapabilityError,
  ResourceNotFoundError,
  LimitExceededError,
} from './errors.ts';
export type { StreamEndReason } from './listen-stream.ts';
export type { SessionEndReason } from './legacy-session.ts';
