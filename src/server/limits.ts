/**
 * The server's documented limits. Every one has a clear error past it:
 *
 * - `maxListenStreams` (default 10,000): open `subscriptions/listen` streams
 *   across the whole server; past it a listen is refused with
 *   `LimitExceeded` (-32000, `data.limit = 'maxListenStreams'`; HTTP 429).
 * - `maxStreamsPerConnection` (default 64): open listen streams on one stdio
 *   connection (a flood of listens is refused the same way, with
 *   `data.limit = 'maxStreamsPerConnection'`). On HTTP each listen owns its
 *   own response, so only `maxListenStreams` applies there.
 * - `maxRequestsPerConnection` (default 1,024): requests being answered at
 *   once on one stdio connection or legacy HTTP session; one more is refused
 *   with `LimitExceeded` (-32000, `data.limit = 'maxRequestsPerConnection'`;
 *   HTTP 429) without running. A modern HTTP request has a POST of its own,
 *   so only the HTTP server in front bounds how many run at once.
 * - `maxUrisPerFilter` (default 256): `resourceSubscriptions` entries in one
 *   listen filter; more is -32602 Invalid params.
 * - `maxSubscribedUriBytes` (default 1 MiB): the UTF-8 bytes of the URIs one
 *   legacy session holds `resources/subscribe` to; a subscription past it is
 *   refused with `LimitExceeded` (-32000, `data.limit =
 *   'maxSubscribedUriBytes'`), the ones held stay.
 * - `maxPendingPerStream` (default 1,024) and `maxPendingBytesPerStream`
 *   (default 65,536, 64 KiB): distinct change events, and the UTF-8 bytes of
 *   them, waiting to be written for one listen stream or legacy session.
 *   Repeats of a pending event coalesce (a second `tools/list_changed` before
 *   the first was written says nothing new), so a stalled client holds at most
 *   one frame per thing its filter names (256 URIs and 3 lists); the byte bound
 *   is the one such a client reaches. Bytes count while the client is not
 *   draining its output (a burst to a client that reads goes out on the next
 *   turn); a client that lets more pile up is ended: its listen request is answered with -32000 (`data.reason =
 *   'slow_consumer'`, `data.exceeded = 'events' | 'bytes'`), a legacy session
 *   is closed.
 * - `maxBodyBytes` (default 4 MiB): one stdio line or one HTTP POST body;
 *   larger is -32700 on stdio (under the request's id when either end of the
 *   line names it) and HTTP 413 on HTTP.
 * - `maxSessions` (default 1,000): legacy HTTP sessions; past it
 *   `initialize` gets HTTP 503 with a -32000 error.
 * - `sessionIdleMs` (default 600,000, ten minutes): a legacy HTTP session
 *   with no request in progress, no GET stream open and no message from its
 *   client for this long ends (clients may leave without DELETE, as the
 *   official client's close() does); its id then gets 404, so the client
 *   starts a new session. A stdio session lives as long as its connection.
 * - `initializeTimeoutMs` (default 30,000): a legacy HTTP session whose client
 *   has not sent `notifications/initialized` this long after its `initialize`
 *   ends (`initialize_timeout`), whatever it sends meanwhile; its id then gets
 *   404. Clients that never finish initializing hold a `maxSessions` slot for
 *   at most this long.
 * - `outboxHighWater` (default 256): queued notifications per connection (or
 *   per HTTP response) at which request-scoped progress/log writes wait until
 *   the client drains. Responses and errors are written ahead of queued
 *   notifications, so a request sent during a burst is answered behind at most
 *   this many of them. stdio keeps reading input while notifications wait; it
 *   holds its input back (reading at most `maxBodyBytes` more, unparsed) only
 *   while this many answers, or twice this many notifications, or half of
 *   `maxQueuedBytes`, wait unread.
 * - `maxQueuedBytes` (default 8 MiB): the UTF-8 bytes of responses and
 *   request-scoped notifications (progress, log, a handler's asks) waiting
 *   unwritten for one stdio connection or one HTTP response stream (a POST's
 *   answer); change events are bounded per stream by
 *   `maxPendingBytesPerStream` instead. `outboxHighWater` counts frames, so
 *   without it a client that stops reading would hold 256 frames of any size
 *   each. Request-scoped writers wait while half of it waits. Past it, while the
 *   client does not drain its output (a single frame larger than this is still
 *   written), what waits is dropped and the connection ends: a stdio connection
 *   closes (`closed` resolves `{ type: 'slow_consumer', exceeded:
 *   'queued_bytes' }`, and a line says so on stderr); an HTTP response stream
 *   answers its request with -32000 (`data.reason = 'slow_consumer'`,
 *   `data.exceeded = 'queued_bytes'`, `data.limit = 'maxQueuedBytes'`) and ends,
 *   its handler's signal aborted. A legacy session's GET stream is bounded so
 *   for what goes on it directly (a batched request's asks): past it the session
 *   ends (its reason this overflow), its GET stream ends (cut `finishTimeoutMs`
 *   later if still unread), its running requests abort with SlowConsumerError.
 * - `finishTimeoutMs` (default 5,000): how long a graceful listen completion
 *   may take to flush before the stream is cut.
 * - `drainTimeoutMs` (default 10,000): how long `close()` lets the requests
 *   already running finish, their answers written, while it admits no new
 *   ones (-32000, HTTP 503); then their handlers' signals abort and the
 *   transports' close cuts what is still unanswered.
 * - `clientRequestTimeoutMs` (default 60,000): how long a handler's ask
 *   (`elicit`, `createMessage`, `listRoots`) waits for a legacy client's
 *   answer; then the client gets `notifications/cancelled` and the ask rejects
 *   with ClientRequestTimeoutError.
 * - `maxInputRounds` (default 8): input-required rounds of one modern request;
 *   an attempt that would need one more is refused with -32602
 *   (`data.reason = 'too_many_rounds'`); in one legacy request, the
 *   `inputRequired` returns of a handler (one more fails it with
 *   LimitExceededError).
 * - `maxRequestStateBytes` (default 65,536, 64 KiB): the sealed
 *   `requestState` of an input-required result (it carries the answers given
 *   so far, the requests a handler returned and its own state); a larger one fails the request with -32000
 *   (`data.limit = 'maxRequestStateBytes'`).
 * - `requestStateTtlMs` (default 600,000, ten minutes): how long a
 *   `requestState` is accepted after it was issued; later it is refused with
 *   -32602 (`data.reason = 'expired'`).
 * - `replayEvents` (default 256), `replayBytes` (default 65,536, 64 KiB) and
 *   `replayAgeMs` (default 300,000, five minutes): what a legacy HTTP
 *   session keeps of its GET stream for a client that reconnects with
 *   `Last-Event-ID`. A reconnect from further back than that (or with an id
 *   the session never sent) is a gap: nothing is replayed, and the session
 *   is sent every list-changed notification it is registered for and a
 *   `resources/updated` for every URI it subscribed, so its client refetches
 *   everything. `replayEvents: 0` keeps nothing (every reconnect is a gap).
 *   Each legacy POST response stream keeps its own frames within the same
 *   bounds, until `replayAgeMs` after it ended or lost its connection (a
 *   stream without a connection that long is cancelled); a resume from too
 *   far back answers its request with -32000 (`data.limit = 'replayEvents'`).
 * - `sseRetryMs` (default 1,000): the `retry` field a legacy GET or POST
 *   response stream opens with and that precedes its closing by the server: how long the
 *   client waits before it reconnects.
 */
export interface ServerLimits {
  /** Open listen streams across the server (default 10,000). */
  maxListenStreams: number;
  /** Open listen streams on one stdio connection (default 64). */
  maxStreamsPerConnection: number;
  /** Requests being answered at once on one stdio connection or legacy HTTP session (default 1,024). */
  maxRequestsPerConnection: number;
  /** `resourceSubscriptions` entries in one listen filter (default 256). */
  maxUrisPerFilter: number;
  /** UTF-8 bytes of the URIs one legacy session holds subscriptions to (default 1 MiB). */
  maxSubscribedUriBytes: number;
  /** Distinct change events waiting for one stream or legacy session (default 1,024). */
  maxPendingPerStream: number;
  /** UTF-8 bytes of those events (default 64 KiB). */
  maxPendingBytesPerStream: number;
  /** One stdio line or HTTP POST body (default 4 MiB). */
  maxBodyBytes: number;
  /** Legacy HTTP sessions (default 1,000). */
  maxSessions: number;
  /** Idle time after which a legacy HTTP session ends (default ten minutes). */
  sessionIdleMs: number;
  /** Time a legacy HTTP session has to finish initializing (default 30 s). */
  initializeTimeoutMs: number;
  /** Queued notifications per connection at which request-scoped writes wait (default 256). */
  outboxHighWater: number;
  /** UTF-8 bytes of answers and request-scoped notifications waiting for one stdio connection or HTTP response stream (default 8 MiB). */
  maxQueuedBytes: number;
  /** Time a graceful listen completion has to flush (default 5 s). */
  finishTimeoutMs: number;
  /** Time `close()` gives the requests already running to finish before their signals abort (default 10 s). */
  drainTimeoutMs: number;
  /** Time a handler's ask waits for a legacy client's answer (default 60 s). */
  clientRequestTimeoutMs: number;
  /** Input-required rounds of one request (default 8). */
  maxInputRounds: number;
  /** Size of a sealed `requestState` (default 64 KiB). */
  maxRequestStateBytes: number;
  /** How long a `requestState` is accepted after it was issued (default ten minutes). */
  requestStateTtlMs: number;
  /** Events a legacy HTTP stream keeps for a `Last-Event-ID` reconnect (default 256). */
  replayEvents: number;
  /** Bytes of those events (default 64 KiB). */
  replayBytes: number;
  /** How long they are kept (default five minutes). */
  replayAgeMs: number;
  /** The SSE `retry` a legacy stream opens and closes with (default 1 s). */
  sseRetryMs: number;
}

/** The limits a server has unless `createServer({ limits })` overrides some. */
export const DEFAULT_LIMITS: ServerLimits = {
  maxListenStreams: 10_000,
  maxStreamsPerConnection: 64,
  maxRequestsPerConnection: 1_024,
  maxUrisPerFilter: 256,
  maxSubscribedUriBytes: 1024 * 1024,
  maxPendingPerStream: 1_024,
  maxPendingBytesPerStream: 64 * 1024,
  maxBodyBytes: 4 * 1024 * 1024,
  maxSessions: 1_000,
  sessionIdleMs: 600_000,
  initializeTimeoutMs: 30_000,
  outboxHighWater: 256,
  maxQueuedBytes: 8 * 1024 * 1024,
  finishTimeoutMs: 5_000,
  drainTimeoutMs: 10_000,
  clientRequestTimeoutMs: 60_000,
  maxInputRounds: 8,
  maxRequestStateBytes: 64 * 1024,
  requestStateTtlMs: 600_000,
  replayEvents: 256,
  replayBytes: 64 * 1024,
  replayAgeMs: 300_000,
  sseRetryMs: 1_000,
};
