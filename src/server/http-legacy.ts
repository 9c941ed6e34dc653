/**
 * Legacy-era (2025-03-26 … 2025-11-25) sessionful Streamable HTTP: an
 * `initialize` POST mints an `Mcp-Session-Id`; later POSTs carry it; a GET
 * opens the session's stream for unsolicited messages (list changes,
 * resource updates); DELETE ends the session. Request-scoped progress and log
 * messages go on the POST's own response stream, never to another session.
 *
 * The GET stream is resumable (legacy-get-stream.ts). A POST's response
 * stream is resumable too, on its own ids (post-stream.ts,
 * session-post-streams.ts): a GET with one of them takes over that stream and
 * nothing else.
 *
 * A session of a revision that has JSON-RPC batches takes a batch POST and
 * answers it with one JSON array once every request in it is done.
 *
 * A client that leaves more than `maxQueuedBytes` unread on its GET stream
 * has its session ended, as one whose change events pile up does
 * (legacy-session.ts): the GET stream ends, its running requests abort with
 * SlowConsumerError, which a batch answers them with.
 */
import { randomUUID } from 'node:crypto';
import type { HttpRequestHead, HttpResponse } from './http-exchange.ts';
import { classifyFrame, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse, type RequestId } from '../protocol/jsonrpc.ts';
import { acceptsBatches, isLegacyVersion } from '../protocol/versions.ts';
import { BatchReply } from './batch-reply.ts';
import type { ServerCore } from './core.ts';
import { idInUseError, InvalidRequestError, LimitExceededError, SlowConsumerError, type WireError } from './errors.ts';
import { HttpReply, sendJson, sendStatus } from './http-io.ts';
import { SessionGetStream } from './legacy-get-stream.ts';
import type { QueueOverflow } from './outbox.ts';
import { SessionPostStreams } from './session-post-streams.ts';
import type { LegacySession, SessionEndReason } from './legacy-session.ts';
import { routeLegacy } from './legacy-router.ts';
import { errorFrame, refusalFrame, resultFrame, type Outcome } from './outcome.ts';
import { requestKey } from './json-values.ts';
import type { ReplyChannel } from './request-context.ts';

interface SessionRecord {
  session: LegacySession;
  inflight: Map<string, AbortController>;
  /** Unsolicited messages and batched requests' asks; what waits unread past `maxQueuedBytes` sheds the session. */
  getStream: SessionGetStream;
  /** Each POST's answer stream, which a client may resume. */
  posts: SessionPostStreams;
}

const SESSION_HEADER = 'mcp-session-id';

/**
 * A batched request's channel. Its notifications go nowhere (its answer goes in the batch's one JSON array); a
 * request its handler sends the client goes on the session's GET stream, the one stream that can carry it to a
 * client reading the batch as JSON (unrelated to any request, the transport prefers, but then never delivered),
 * and fails at once when none is open or the ask is one too many unread (`SessionGetStream.ask`).
 */
const batchedChannel = (record: SessionRecord): ReplyChannel => ({
  notify: () => Promise.resolve(),
  sendRequest: (json) => record.getStream.ask(json),
});

/** The legacy-era sessions of one HTTP endpoint: their lifecycle, and each request routed to its session. */
export class LegacyHttpSessions {
  private readonly records = new Map<string, SessionRecord>();

  constructor(private readonly core: ServerCore, private readonly keepAliveMs: number) {}

  sessionIdOf(req: HttpRequestHead): string | undefined {
    const value = req.headers[SESSION_HEADER];
    return Array.isArray(value) ? value[0] : value;
  }

  /** An `initialize` POST without a session id. */
  async initialize(res: HttpResponse, request: JsonRpcRequest): Promise<void> {
    const refusal = this.core.requestRefusal(request.method, 0);
    if (refusal) return sendJson(res, refusal.httpStatus, errorFrame(request.id, refusal));
    if (this.records.size >= this.core.limits.maxSessions) {
      const error = new LimitExceededError('maxSessions', this.core.limits.maxSessions, 503);
      return sendJson(res, error.httpStatus, errorFrame(request.id, error));
    }
    const id = randomUUID();
    const session = this.core.newSession(id, 'http', (reason) => this.forget(id, reason), { initializeMs: this.core.limits.initializeTimeoutMs });
    const getStream = new SessionGetStream(session, this.core.limits, this.keepAliveMs, (overflow) => this.shed(id, overflow));
    const posts = new SessionPostStreams(id, this.core.limits, this.keepAliveMs);
    const record: SessionRecord = { session, inflight: new Map(), getStream, posts };
    this.records.set(id, record);
    const outcome = await routeLegacy(this.core, session, request, new HttpReply(res, { highWater: 1 }), new AbortController().signal);
    if (outcome.kind === 'result') return sendJson(res, 200, resultFrame(request.id, outcome.result), { 'mcp-session-id': id });
    session.end({ type: 'transport_closed' });
    if (outcome.kind === 'error') sendJson(res, outcome.error.httpStatus, errorFrame(request.id, outcome.error));
  }

  /** Any POST carrying a session id. */
  async post(req: HttpRequestHead, res: HttpResponse, message: JsonRpcRequest | JsonRpcNotification): Promise<void> {
    const record = this.lookupForPost(req, res, 'id' in message ? message.id : null);
    if (!record) return;
    if (!('id' in message)) {
      record.session.activity();
      this.notification(record, message);
      return sendStatus(res, 202);
    }
    const admitted = this.admit(record, message);
    if ('refused' in admitted) return sendJson(res, admitted.refused.httpStatus, errorFrame(message.id, admitted.refused));
    await this.core.running.track(admitted.controller, this.respond(record, res, message, admitted.controller));
  }

  /** Answers an admitted request of a session's POST, plain or as a (resumable) stream. */
  private async respond(record: SessionRecord, res: HttpResponse, message: JsonRpcRequest, controller: AbortController): Promise<void> {
    const post = record.posts.open(res, message.id, controller);
    const reply = post.stream;
    // A plain JSON answer cannot be resumed: the client is gone. A stream waits for a resume, for a while (the
    // stream's own rule, session-post-streams.ts, for this connection and any that resumes it).
    res.on('close', () => {
      if (!res.writableFinished && !reply.resumable) controller.abort();
    });
    const outcome = await this.serve(record, message, reply, controller);
    // A stream that gave up on its client (SlowConsumerError) still writes its error: it ends as an answered one.
    if (controller.signal.aborted) return reply.shed ? record.posts.answered(post) : record.posts.drop(post);
    if (outcome.kind === 'result') await reply.finish(resultFrame(message.id, outcome.result), 200);
    if (outcome.kind === 'error') await reply.finish(errorFrame(message.id, outcome.error), outcome.error.httpStatus === 404 ? 200 : outcome.error.httpStatus);
    record.posts.answered(post);
  }

  /**
   * A POST whose body is a JSON-RPC batch, in a session of a revision that has them (`acceptsBatches`; any other
   * session refuses it -32600, as it always refused an array). Its notifications and responses are taken as they
   * come, its requests served side by side and answered together, as one JSON array, once all are done (202 when it
   * held no request, or every one was cancelled). A batched request has no stream of its own: its request-scoped
   * notifications (progress, log messages) are dropped, and its handler's requests to the client go on the
   * session's GET stream (batchedChannel).
   */
  async postBatch(req: HttpRequestHead, res: HttpResponse, values: unknown[]): Promise<void> {
    const record = this.lookupForPost(req, res, null);
    if (!record) return;
    if (!acceptsBatches(record.session.protocolVersion) || values.length === 0) {
      const why = values.length === 0 ? 'a batch must hold at least one message' : `protocol version ${record.session.protocolVersion ?? '(none yet)'} has no JSON-RPC batches`;
      return sendJson(res, 400, errorFrame(null, new InvalidRequestError(`Invalid request: ${why}`)));
    }
    record.session.activity();
    let answered!: () => void;
    const done = new Promise<void>((resolve) => (answered = resolve));
    const batch = new BatchReply((json) => {
      if (json === undefined) sendStatus(res, 202);
      else sendJson(res, 200, json, { 'mcp-session-id': record.session.id });
      answered();
    });
    const controllers: AbortController[] = [];
    for (const value of values) {
      const frame = classifyFrame(value);
      if (frame.kind === 'invalid') batch.answer(refusalFrame(frame.error));
      else if (frame.kind === 'notification') this.notification(record, frame.message);
      else if (frame.kind === 'response') record.session.clientRequests.settle(frame.message);
      else {
        const request = frame.message;
        const admitted = this.admit(record, request);
        if ('refused' in admitted) batch.answer(errorFrame(request.id, admitted.refused));
        else {
          controllers.push(admitted.controller);
          batch.track(
            this.serve(record, request, batchedChannel(record), admitted.controller).then((outcome) => {
              const { signal } = admitted.controller;
              // Shed for a GET stream its client did not read: answered with why, as an answer stream would be.
              if (signal.aborted && signal.reason instanceof SlowConsumerError) return batch.answer(errorFrame(request.id, signal.reason));
              if (signal.aborted || outcome.kind === 'listen') return;
              batch.answer(outcome.kind === 'result' ? resultFrame(request.id, outcome.result) : errorFrame(request.id, outcome.error));
            }),
          );
        }
      }
    }
    // The client gave up on the answer: what it asked is abandoned, as for a single POST.
    res.on('close', () => {
      if (!res.writableFinished) for (const controller of controllers) controller.abort();
    });
    batch.seal();
    // Each request of the batch runs until the batch's one answer is written.
    for (const controller of controllers) void this.core.running.track(controller, done);
    await done;
  }

  /** A POST carrying the client's response to a request a handler sent it: 202 once routed. */
  answer(req: HttpRequestHead, res: HttpResponse, response: JsonRpcResponse): void {
    const record = this.lookup(req, res, null);
    if (!record) return;
    record.session.activity();
    record.session.clientRequests.settle(response);
    sendStatus(res, 202);
  }

  /** GET: the session's stream for unsolicited messages. */
  openStream(req: HttpRequestHead, res: HttpResponse): void {
    const record = this.lookup(req, res, null);
    if (!record) return;
    const header = req.headers['last-event-id'];
    const lastEventId = Array.isArray(header) ? header[0] : header;
    if (lastEventId?.startsWith('p')) return record.posts.resume(res, lastEventId);
    record.getStream.open(res, lastEventId);
  }

  /** DELETE: the client ends its session. */
  end(req: HttpRequestHead, res: HttpResponse): void {
    const record = this.lookup(req, res, null);
    if (!record) return;
    record.session.end({ type: 'client_deleted' });
    sendStatus(res, 200);
  }

  /** Ends every session (the HTTP endpoint is closing). */
  endAll(): void {
    for (const record of [...this.records.values()]) record.session.end({ type: 'server_shutdown' });
  }

  /** A POST's session, as `lookup` finds it, if the POST names a legacy protocol version (or none); else answered 400. */
  private lookupForPost(req: HttpRequestHead, res: HttpResponse, id: RequestId | null): SessionRecord | undefined {
    const record = this.lookup(req, res, id);
    const version = req.headers['mcp-protocol-version'];
    if (!record || typeof version !== 'string' || isLegacyVersion(version)) return record;
    sendJson(res, 400, errorFrame(id, new InvalidRequestError(`Bad Request: unsupported MCP-Protocol-Version ${version}`)));
    return undefined;
  }

  private lookup(req: HttpRequestHead, res: HttpResponse, id: RequestId | null): SessionRecord | undefined {
    const sessionId = this.sessionIdOf(req);
    const record = sessionId === undefined ? undefined : this.records.get(sessionId);
    if (record) return record;
    if (sessionId === undefined) {
      sendJson(res, 400, errorFrame(id, new InvalidRequestError('Bad Request: Mcp-Session-Id header is required')));
    } else {
      sendJson(res, 404, JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32001, message: 'Session not found' } }));
    }
    return undefined;
  }

  /**
   * Admits a request to the session's in-flight table, or says why not: a second request under the id of one still
   * being answered would take over its cancel (refused as over stdio), and the session has a limit.
   */
  private admit(record: SessionRecord, request: JsonRpcRequest): { controller: AbortController } | { refused: WireError } {
    const key = requestKey(request.id);
    if (record.inflight.has(key)) return { refused: idInUseError(request.id) };
    const refusal = this.core.requestRefusal(request.method, record.inflight.size);
    if (refusal) return { refused: refusal };
    const controller = new AbortController();
    record.inflight.set(key, controller);
    return { controller };
  }

  /** Runs an admitted request; it leaves the in-flight table when done. */
  private async serve(record: SessionRecord, request: JsonRpcRequest, reply: ReplyChannel, controller: AbortController): Promise<Outcome> {
    record.session.hold();
    try {
      return await routeLegacy(this.core, record.session, request, reply, controller.signal);
    } finally {
      record.session.release();
      record.inflight.delete(requestKey(request.id));
    }
  }

  private notification(record: SessionRecord, message: JsonRpcNotification): void {
    if (message.method === 'notifications/initialized') record.session.initialized();
    if (message.method === 'notifications/cancelled') {
      const id = message.params?.requestId;
      if (typeof id === 'string' || typeof id === 'number') record.inflight.get(requestKey(id))?.abort();
    }
  }

  /**
   * The session's client let more than `maxQueuedBytes` wait unread on its GET stream: the session ends, as it does
   * when its change events pile up (its lane's SlowConsumer), and its running requests abort with SlowConsumerError.
   */
  private shed(id: string, overflow: QueueOverflow): void {
    this.records.get(id)?.session.end(overflow);
  }

  private forget(id: string, reason: SessionEndReason): void {
    const record = this.records.get(id);
    if (!record) return;
    this.records.delete(id);
    // Shed (`shed`): its requests learn why, which a batch answers them with.
    const shed = reason.type === 'slow_consumer' && reason.exceeded === 'queued_bytes' ? new SlowConsumerError(reason.maxQueuedBytes) : undefined;
    for (const controller of record.inflight.values()) controller.abort(shed);
    record.posts.dropAll();
    record.getStream.close();
  }
}
