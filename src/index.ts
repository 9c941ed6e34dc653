/** The client side of mcp-actors; the server side is `mcp-actors/server`. */
export { createClient, McpClient, type ClientOptions } from './client/client.ts';
export type { ClientEvent, ClientEventOf, ClientEventType, ClientState, ClientStatus } from './client/client-status.ts';
export { DEFAULT_REQUEST_TIMEOUT_MS } from './client/connection.ts';
export { DEFAULT_PROBE_TIMEOUT_MS } from './client/negotiation.ts';
export {
  DEFAULT_MAX_SERVER_REQUESTS_IN_FLIGHT,
  InvalidHandlerResultError,
  InvalidServerRequestParamsError,
  ServerRequestHandlerError,
  ServerRequestRefusedError,
  UnknownServerRequestMethodError,
  type OnRequestOptions,
  type ServerRequestContext,
  type ServerRequestHandler,
} from './client/server-requests.ts';
export type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitFieldSchema,
  ElicitFormParams,
  ElicitParams,
  ElicitResult,
  ElicitUrlParams,
  ElicitValue,
  ListRootsParams,
  ListRootsResult,
  Root,
  SamplingContent,
  SamplingMessage,
  ServerRequestMethod,
  ServerRequestTypes,
} from './client/server-request-types.ts';
export {
  DEFAULT_MAX_INPUT_ROUNDS,
  InputHandlerMissingError,
  InputRoundsExceededError,
  MalformedInputRequiredError,
} from './client/input-required.ts';
export {
  changeCacheLogic,
  listenerLogic,
  listenLogic,
  type ChangeCacheLogicInput,
  type ListenerLogicInput,
  type ListenLogicInput,
  type SubscriptionEvent,
} from './client/actor-logic.ts';
export { DEFAULT_BACKOFF, type Backoff, type FirstConnectPolicy } from '../machines/connection.machine.ts';
export { DEFAULT_MAX_RETRY_AFTER_MS } from '../machines/backoff.ts';
export { CLIENT_REQUEST_CHANNEL, type ClientRequestTrace } from './client/request-trace.ts';
export type { ClosedReason, ConnectionClosedReason } from '../machines/closed-reason.ts';
export type { SubscriberMessage, SubscriptionRef, ResyncSnapshot, ResubscribeReport } from './client/messages.ts';
export type { RequestOptions } from './client/ports.ts';
export type { RequestMeta } from './protocol/request-meta.ts';
export type { Clock, Inspector } from './runtime/actor-options.ts';
/** @deprecated The same type as `Inspector`, under its earlier name. */
export type { Inspector as Inspect } from './runtime/actor-options.ts';
export {
  AcknowledgmentViolationError,
  DEFAULT_ACK_TIMEOUT_MS,
  DEFAULT_MAILBOX_CAP,
  DeliveryDroppedError,
  HonoredFilterTooBroadError,
  ListenAckTimeoutError,
  ListenNotAcknowledgedError,
  ListenStalledError,
  SubscriberCallbackError,
  type ListenOptions,
  type ListenStream,
  type IterableListenStream,
} from './client/subscription.ts';
export {
  ListenerClosedError,
  ListenerNotFoundError,
  SubscribeFailedError,
  type ListenerRef,
  type IterableListenerRef,
  type Subscriber,
} from './client/listeners.ts';
export * from './protocol/errors.ts';
export { FrameError, MAX_FRAME_DEPTH, type FrameProblem, type JsonObject, type RequestId } from './protocol/jsonrpc.ts';
export { FilterError, type NotificationFilter } from './protocol/filter.ts';
export type {
  Annotations,
  AudioContent,
  BlobResourceContents,
  CallToolResult,
  CompleteParams,
  CompleteResult,
  ContentBlock,
  EmbeddedResource,
  GetPromptResult,
  Icon,
  ImageContent,
  JsonValue,
  Prompt,
  PromptArgument,
  PromptMessage,
  PromptReference,
  ReadResourceResult,
  Resource,
  ResourceLink,
  ResourceTemplate,
  ResourceTemplateReference,
  Role,
  ServerCapabilities,
  ServerInfo,
  TextContent,
  TextResourceContents,
  Tool,
  ToolAnnotations,
} from './protocol/mcp-types.ts';
export { MODERN_VERSION, LATEST_LEGACY_VERSION, type Era, type EraPreference } from './protocol/versions.ts';
export { stdioTransport, type StdioTransportOptions } from './transport/stdio.ts';
export { httpTransport } from './transport/http.ts';
export type { HttpTransportOptions } from './transport/http-options.ts';
export { GetStreamContentTypeError, GetStreamEndedError, GetStreamStalledError } from './transport/legacy-get-stream.ts';
export { UnsendableEventIdError } from './transport/resumable-stream.ts';
export { HttpRedirectError, MAX_REDIRECTS } from './transport/redirects.ts';
export { DEFAULT_STALL_AFTER_MS } from './transport/silence-watch.ts';
export { InvalidToolHeaderAnnotationError } from './transport/tool-param-headers.ts';
export { ResyncInterruptedError } from '../machines/subscription-errors.ts';
export type { ResumeOptions } from './transport/resumable-stream.ts';
export { AuthError, type AuthErrorCode } from './transport/auth/errors.ts';
export { AUTH_FETCH_TIMEOUT_MS, MAX_AUTH_BODY_BYTES } from './transport/auth/bounded-fetch.ts';
export type {
  AuthProvider,
  AuthorizationCodeProvider,
  Awaitable,
  ClientCredentialsProvider,
  ClientInformation,
  ClientMetadata,
  OAuthTokens,
} from './transport/auth/provider.ts';
export { fromSdkTransport, type SdkTransportLike } from './transport/sdk-adapter.ts';
export {
  inMemoryTransport,
  type InMemoryClientTransport,
  type InMemoryServe,
  type InMemoryServedConnection,
  type InMemoryServerEnd,
  type InMemoryTransportOptions,
} from './transport/in-memory.ts';
export { DEFAULT_MAX_BACKLOG_BYTES, type ClientTransport, type TransportFactory } from './transport/transport.ts';
export {
  createChangeCache,
  DEFAULT_CACHE_RECOVERY,
  DEFAULT_READ_TIMEOUT_MS,
  type ChangeCacheHandle,
  type ChangeCacheOptions,
  type CacheRecovery,
} from './cache/change-cache.ts';
export type { ChangeCache, CacheEvent, CacheRead, CacheState, ReadMode, Interest, EntryKey } from './cache/types.ts';
export { computeFilter, validateInterest } from './cache/interest.ts';
export * from './cache/errors.ts';
export { CacheConnectionClosedError, CacheNegotiationTimeoutError } from './cache/cache-io.ts';
