/**
 * The Streamable HTTP client transport, for both eras.
 *
 * Every message is its own POST. A request's answer is a JSON body or an SSE
 * stream scoped to that request; `send` resolves once the response headers
 * arrive with a 2xx status and the body is read in the background
 * (http-request-response.ts). A request stream that ends before its response
 * is reported with `requestStreamEnded`.
 *
 * - Modern (2026-07-28, and the default until told otherwise, so the
 *   `server/discover` probe carries it): `MCP-Protocol-Version`,
 *   `Mcp-Method` and `Mcp-Name` on every POST; no session, no GET stream.
 *   Every `tools/list` response teaches the transport which arguments each
 *   tool marks with `x-mcp-header` (tools with invalid marks are dropped from
 *   the result and reported via `error`), and a `tools/call` for a tool seen
 *   there carries their `Mcp-Param-{Name}` headers (tool-param-headers.ts).
 * - Legacy (2025-03-26 … 2025-11-25): the `Mcp-Session-Id` minted on
 *   `initialize` and the negotiated `MCP-Protocol-Version` go on every later
 *   request, a GET stream carries unsolicited server messages once
 *   `notifications/initialized` was sent, and `close()` sends DELETE.
 *
 * Legacy SSE streams that carry event ids are resumable (resumable-stream.ts):
 * a response or GET stream that ends or breaks is reopened by GET with
 * `Last-Event-ID` after the server's `retry`, within the `resume` bounds; a
 * response stream that ends before its response resumes the same way
 * instead of failing the request.
 *
 * Authorization (auth/): with an `auth` provider every request carries the
 * provider's bearer token, and a 401 (or a 403 `insufficient_scope`) runs the
 * authorization flow once and retries; without one a 401 is an `AuthError`.
 *
 * What a server can make the client write is bounded: a request from the
 * server that arrives while more than `maxBacklogBytes` of answers and
 * notifications are posted and not yet taken (no response headers), each
 * POST counted as its body plus POST_COST_BYTES for the open request, ends
 * the transport with PeerNotReadingError.
 *
 * A POST reset before any response header (a keep-alive socket the server
 * closed while idle) goes again, once, unless it is a `tools/call`
 * (closed-socket.ts). An unreachable server (a refused connection, a resend
 * reset again, a GET stream that ends and cannot be resumed, a 404 for our
 * session) ends the transport with `closed({ type: 'failed' })`; the
 * connection then reconnects and reports a gap (`reconnected`), so listeners
 * and the cache refetch.
 */
import { HttpStatusError, NotConnectedError, OutcomeUnknownError, StreamEndedError, TransportStartError } from '../protocol/errors.ts';
import type { ClassifiedFrame, JsonRpcMessage, JsonRpcRequest, JsonRpcResponse, RequestId } from '../protocol/jsonrpc.ts';
import { MODERN_VERSION, type Era } from '../protocol/versions.ts';
import { authHooks, type AuthHook } from './auth/http-hook.ts';
import type { Fetch } from './auth/discovery.ts';
import { readRpcError } from './json-body.ts';
import { LegacySession } from './legacy-session.ts';
import { modernMessageHeaders } from './mcp-headers.ts';
import { openGetStream } from './legacy-get-stream.ts';
import { readRequestResponse, type RequestResponseHost } from './http-request-response.ts';
import { DEFAULT_STALL_AFTER_MS } from './silence-watch.ts';
import { OpenFetches } from './open-fetches.ts';
import { redirectingFetch } from './redirects.ts';
import { fetchResending, postToolCall } from './closed-socket.ts';
import type { ResumeOptions } from './resumable-stream.ts';
import type { HttpTransportOptions } from './http-options.ts';
import { ToolParamHeaders } from './tool-param-headers.ts';
import {
  DEFAULT_MAX_BACKLOG_BYTES,
  DEFAULT_MAX_FRAME_BYTES,
  serializeMessage,
  unreadBacklog,
  type ClientTransport,
  type TransportClosedInfo,
  type TransportEvents,
  type TransportFactory,
} from './transport.ts';

/** What one POST awaiting its response headers is counted as besides its body: the request and socket it holds open. */
const POST_COST_BYTES = 4 * 1024;

/** How long `close()` waits for the server to answer the session DELETE. */
const DELETE_TIMEOUT_MS = 5_000;

/** The Streamable HTTP transport of both eras, as a factory: every connection attempt gets a fresh transport sharing one authorization state. */
export const httpTransport = (options: HttpTransportOptions): TransportFactory => {
  // One fetch for the transport's requests and authorization's alike (the global one, looked up per call, by default).
  const fetcher: Fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  // OAuth's own requests follow redirects as fetch does (metadata may live elsewhere); the MCP endpoint's do not.
  const hooks = authHooks(options.auth, fetcher);
  const endpointFetch = redirectingFetch(fetcher);
  return () => new HttpClientTransport(options, endpointFetch, hooks);
};

type Phase = 'new' | 'open' | 'failed' | 'closed';

const isRequest = (message: JsonRpcMessage): message is JsonRpcRequest => 'method' in message && 'id' in message;

/** Not exported: the members the response readers use (`RequestResponseHost`) are reachable only through them. */
class HttpClientTransport implements ClientTransport, RequestResponseHost {
  readonly kind = 'http' as const;
  private phase: Phase = 'new';
  private events: TransportEvents | undefined;
  private endpoint: URL | undefined;
  protocol: { era: Era; version: string } = { era: 'modern', version: MODERN_VERSION };
  session = new LegacySession();
  /** Every open fetch: request streams (by id, for cancels) and the GET stream, for close(). */
  readonly fetches = new OpenFetches();
  /** The `x-mcp-header` arguments of the tools listed so far (modern era). */
  private readonly toolParams = new ToolParamHeaders();
  readonly maxFrameBytes: number;
  readonly resume: ResumeOptions | undefined;
  readonly stallAfterMs: number;
  private readonly maxBacklogBytes: number;
  /** Bytes of the answers and notifications posted and not yet taken (see POST_COST_BYTES). */
  private backlogBytes = 0;
  private auth: AuthHook | undefined;
  /** The access token requests carry (the last the auth hook gave). */
  private bearer: string | undefined;

  constructor(
    private readonly options: HttpTransportOptions,
    readonly fetch: Fetch,
    private readonly authHookFor: (endpoint: URL) => AuthHook,
  ) {
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.resume = options.resume;
    this.stallAfterMs = options.stallAfterMs ?? DEFAULT_STALL_AFTER_MS;
    this.maxBacklogBytes = options.maxBacklogBytes ?? DEFAULT_MAX_BACKLOG_BYTES;
  }

  async start(events: TransportEvents): Promise<void> {
    if (this.phase !== 'new') throw new TransportStartError('the HTTP transport was already started');
    let url: URL;
    try {
      url = new URL(this.options.url);
    } catch (cause) {
      throw new TransportStartError(`${String(this.options.url)} is not a valid URL`, { cause });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TransportStartError(`${url.href} is not an http: or https: URL`);
    }
    this.endpoint = url;
    this.auth = this.authHookFor(url);
    this.events = events;
    this.phase = 'open';
  }

  setProtocol(protocol: { era: Era; version: string }): void {
    if (protocol.era === 'modern') this.session = new LegacySession();
    else this.session.renegotiated(protocol.version);
    this.protocol = { ...protocol };
  }

  send(message: JsonRpcMessage): Promise<void> {
    let body: string;
    try {
      body = serializeMessage(message);
    } catch (error) {
      return Promise.reject(error);
    }
    if (isRequest(message)) return this.sendNow(message, body);
    // An answer or a notification counts toward the backlog from when it is handed over until the server took it.
    const cost = Buffer.byteLength(body) + POST_COST_BYTES;
    this.backlogBytes += cost;
    const sent = this.sendNow(message, body);
    const taken = () => void (this.backlogBytes -= cost);
    sent.then(taken, taken);
    return sent;
  }

  /** Posts `message` (serialized as `body`) and, for a request, reads its response in the background. */
  private async sendNow(message: JsonRpcMessage, body: string): Promise<void> {
    const endpoint = this.endpoint;
    if (this.phase !== 'open' || endpoint === undefined) {
      throw new NotConnectedError(this.phase === 'new' ? 'not started' : this.phase, 'method' in message ? message.method : undefined);
    }
    const request = isRequest(message) ? message : undefined;
    if (this.protocol.era === 'legacy') this.session.noteOutgoing(message);
    const sentSessionId = this.session.id;
    const controller = this.fetches.start(request?.id);
    let response: Response;
    for (let retries = 0; ; retries++) {
      try {
        this.bearer = await this.auth?.token();
        response = await this.post(endpoint, message, body, controller);
      } catch (error) {
        this.fetches.end(controller);
        // An outcome unknown is that request's alone: the transport stays open for the others.
        if (!controller.signal.aborted && !(error instanceof OutcomeUnknownError)) this.fail(error);
        throw error;
      }
      try {
        if (!(await this.auth!.refused(response, this.bearer, retries))) break;
      } catch (error) {
        this.fetches.end(controller);
        throw error;
      }
    }
    if (this.protocol.era === 'legacy') this.session.noteResponseHeaders(response.headers);
    if (!response.ok) {
      // Ended after its body is read, so that close() and a cancel abort that read too.
      const error = HttpStatusError.of(response, await readRpcError(response, controller.signal));
      this.fetches.end(controller);
      // A 404 for a request that named our session: the server forgot the session.
      if (response.status === 404 && sentSessionId !== undefined) this.fail(error);
      throw error;
    }
    if (request === undefined) {
      this.fetches.end(controller);
      await response.body?.cancel().catch(() => undefined);
      if (this.protocol.era === 'legacy' && 'method' in message && message.method === 'notifications/initialized') {
        void openGetStream(this, endpoint);
      }
      return;
    }
    void readRequestResponse(this, endpoint, response, request, controller);
  }

  /** One POST of `message`, with the headers of the era and the current bearer token (closed-socket.ts: resent once). */
  private post(endpoint: URL, message: JsonRpcMessage, body: string, controller: AbortController): Promise<Response> {
    const init = { method: 'POST', headers: this.postHeaders(message), body, signal: controller.signal };
    return isToolCall(message) ? postToolCall(this.fetch, endpoint, init, message, () => this.baseHeaders()) : fetchResending(this.fetch, endpoint, init);
  }

  get open(): boolean {
    return this.phase === 'open';
  }

  /** Hands an inbound frame on; a request from a server that leaves the backlog unread ends the transport instead. */
  inbound(frame: ClassifiedFrame): void {
    const refusal = unreadBacklog(frame, this.backlogBytes, this.maxBacklogBytes);
    if (refusal) return this.fail(refusal);
    this.events?.frame(frame);
  }

  abortRequest(id: RequestId): boolean {
    return this.fetches.abortRequest(id);
  }

  async close(): Promise<void> {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.fetches.abortAll();
    const { endpoint, session } = this;
    if (endpoint === undefined || session.id === undefined || this.protocol.era !== 'legacy') return;
    try {
      const response = await this.fetch(endpoint, {
        method: 'DELETE',
        headers: session.apply(this.baseHeaders()),
        signal: AbortSignal.timeout(DELETE_TIMEOUT_MS),
      });
      await response.body?.cancel();
    } catch {
      // The session ends with us either way; a server that is gone cannot be told.
    }
  }

  keepAlive(id: RequestId): void {
    if (this.phase === 'open') this.events?.keepAlive(id);
  }

  requestStreamEnded(id: RequestId, error: StreamEndedError): void {
    if (this.phase === 'open') this.events?.requestStreamEnded(id, error);
  }

  /** Remembers the listed tools' marked arguments; reports and drops tools whose marks are invalid. */
  learnTools(response: JsonRpcResponse): JsonRpcResponse {
    if (!('result' in response)) return response;
    const { result, rejected } = this.toolParams.learn(response.result);
    for (const error of rejected) this.events?.error(error);
    return result === response.result ? response : { ...response, result };
  }

  private postHeaders(message: JsonRpcMessage): Headers {
    const headers = this.protocol.era === 'modern' ? this.baseHeaders() : this.session.apply(this.baseHeaders());
    headers.set('content-type', 'application/json');
    headers.set('accept', 'application/json, text/event-stream');
    if (this.protocol.era === 'modern') {
      headers.set('mcp-protocol-version', this.protocol.version);
      for (const [name, value] of Object.entries(modernMessageHeaders(message))) headers.set(name, value);
      if (isRequest(message) && message.method === 'tools/call') {
        for (const [name, value] of this.toolParams.headersFor(message.params)) headers.set(name, value);
      }
    }
    return headers;
  }

  baseHeaders(): Headers {
    const headers = new Headers(this.options.headers);
    if (this.bearer !== undefined) headers.set('authorization', `Bearer ${this.bearer}`);
    return headers;
  }

  error(error: Error): void {
    if (this.phase === 'open') this.events?.error(error);
  }

  /** The server is unreachable or dropped us: end everything and report it once. */
  fail(cause: unknown): void {
    if (this.phase !== 'open') return;
    this.phase = 'failed';
    this.fetches.abortAll();
    const info: TransportClosedInfo = { type: 'failed', cause };
    this.events?.closed(info);
  }
}

/** A `tools/call` request: the one request whose repetition may repeat an effect (a tool may act). */
const isToolCall = (message: JsonRpcMessage): message is JsonRpcRequest => isRequest(message) && message.method === 'tools/call';
