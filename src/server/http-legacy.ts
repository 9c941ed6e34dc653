/**
 * Legacy-era (2025-03-26 … 2025-11-25) sessionful Streamable HTTP: an
 * `initialize` POST mints an `Mcp-Session-Id`; later POSTs carry it; a GET
 * opens the session's stream for unsolicited messages (list changes,
 * resource updates); DELETE ends the session. Request-scoped progress and log
 * messages go on the POST's own response stream, never to another session.
 *
 * The GET stream is resumable: its events carry ids, it opens with one (and
 * the `retry` interval) before any message, and a GET with `Last-Event-ID`
 * replays what the session's replay buffer kept after that id, or, past the
 * buffer, tells the session's client that everything may have changed.
 */
import { randomUUID } from 'node:crypto';
import type { HttpRequestHead, HttpResponse } from './http-exchange.ts';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from '../protocol/jsonrpc.ts';
import { isLegacyVersion } from '../protocol/versions.ts';
import type { ServerCore } from './core.ts';
import { InvalidRequestError, LimitExceededError } from './errors.ts';
import { HttpReply, keepAlive, openSse, sendJson, sendStatus } from './http-io.ts';
import { Outbox } from './outbox.ts';
import { ReplayBuffer } from './replay-buffer.ts';
import type { LegacySession } from './legacy-session.ts';
import { routeLegacy } from './legacy-router.ts';
import { errorFrame, resultFrame, type Outcome } from './outcome.ts';
import { requestKey } from './json-values.ts';

interface SessionRecord {
  session: LegacySession;
  inflight: Map<string, AbortController>;
  /** Unsolicited messages; parked (queued, bounded by the session's lane) while no GET stream is open. */
  outbox: Outbox;
  /** What the GET stream wrote lately, for a reconnect with `Last-Event-ID`. */
  replay: ReplayBuffer;
  getStream: HttpResponse | undefined;
}

const SESSION_HEADER = 'mcp-session-id';
export class LegacyHttpSessions {
  private readonly records = new Map<string, SessionRecord>();

  constructor(private readonly core: ServerCore, private readonly keepAliveMs: number) {}

  sessionIdOf(req: HttpRequestHead): string | undefined {
    const value = req.headers[SESSION_HEADER];
    return Array.isArray(value) ? value[0] : value;
  }

  /** An `initialize` POST without a session id. */
  async initialize(res: HttpResponse, request: JsonRpcRequest): Promise<void> {
    if (this.records.size >= this.core.limits.maxSessions) {
      const error = new LimitExceededError('maxSessions', this.core.limits.maxSessions, 503);
      return sendJson(res, error.httpStatus, errorFrame(request.id, error));
    }
    const id = randomUUID();
    const session = this.core.newSession(id, () => this.forget(id), { initializeMs: this.core.limits.initializeTimeoutMs });
    const { replayEvents, replayBytes, replayAgeMs } = this.core.limits;
    const replay = new ReplayBuffer({ maxEvents: replayEvents, maxBytes: replayBytes, maxAgeMs: replayAgeMs });
    const outbox = new Outbox(undefined, (json) => replay.frame(json), this.core.limits.outboxHighWater);
    session.attach(outbox);
    const record: SessionRecord = { session, inflight: new Map(), outbox, replay, getStream: undefined };
    this.records.set(id, record);
    const outcome = await routeLegacy(this.core, session, request, new HttpReply(res, 1), new AbortController().signal);
    if (outcome.kind === 'result') return sendJson(res, 200, resultFrame(request.id, outcome.result), { 'mcp-session-id': id });
    session.end({ type: 'transport_closed' });
    if (outcome.kind === 'error') sendJson(res, outcome.error.httpStatus, errorFrame(request.id, outcome.error));
  }

  /** Any POST carrying a session id. */
  async post(req: HttpRequestHead, res: HttpResponse, message: JsonRpcRequest | JsonRpcNotification): Promise<void> {
    const record = this.lookup(req, res, 'id' in message ? message.id : null);
    if (!record) return;
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !isLegacyVersion(version)) {
      const error = new InvalidRequestError(`Bad Request: unsupported MCP-Protocol-Version ${version}`);
      return sendJson(res, 400, errorFrame('id' in message ? message.id : null, error));
    }
    if (!('id' in message)) {
      record.session.activity();
      this.notification(record, message);
      return sendStatus(res, 202);
    }
    const key = requestKey(message.id);
    const controller = new AbortController();
    record.inflight.set(key, controller);
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const reply = new HttpReply(res, this.core.limits.outboxHighWater, { 'mcp-session-id': record.session.id });
    record.session.hold();
    let outcome: Outcome;
    try {
      outcome = await routeLegacy(this.core, record.session, message, reply, controller.signal);
    } finally {
      record.session.release();
      record.inflight.delete(key);
    }
    if (controller.signal.aborted) return void res.end();
    if (outcome.kind === 'result') return reply.finish(resultFrame(message.id, outcome.result), 200);
    if (outcome.kind === 'error') return reply.finish(errorFrame(message.id, outcome.error), outcome.error.httpStatus === 404 ? 200 : outcome.error.httpStatus);
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
    if (record.getStream) {
      if (lastEventId === undefined) {
        const error = new InvalidRequestError('Conflict: this session already has a GET stream');
        return sendJson(res, 409, errorFrame(null, error));
      }
      // A resume: the client has given up on the old stream, whether or not its socket told us yet.
      record.getStream.end();
    }
    record.getStream = res;
    record.session.hold();
    res.once('close', () => record.session.release());
    openSse(res, { 'mcp-session-id': record.session.id });
    const retry = `retry: ${this.core.limits.sseRetryMs}\n`;
    const missed = lastEventId === undefined ? undefined : record.replay.since(lastEventId);
    if (missed === undefined) {
      // A fresh stream, or a gap: the client's cursor starts at the last id written; everything after it comes.
      res.write(`id: ${record.replay.lastId}\n${retry}data: \n\n`);
      if (lastEventId !== undefined) record.session.resync();
    } else res.write(`${retry}\n${missed}`);
    record.outbox.retarget(res);
    keepAlive(res, record.outbox, this.keepAliveMs);
    res.on('close', () => {
      if (record.getStream !== res) return;
      record.getStream = undefined;
      record.outbox.retarget(undefined);
    });
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

  private notification(record: SessionRecord, message: JsonRpcNotification): void {
    if (message.method === 'notifications/initialized') record.session.initialized();
    if (message.method === 'notifications/cancelled') {
      const id = message.params?.requestId;
      if (typeof id === 'string' || typeof id === 'number') record.inflight.get(requestKey(id))?.abort();
    }
  }

  private forget(id: string): void {
    const record = this.records.get(id);
    if (!record) return;
    this.records.delete(id);
    for (const controller of record.inflight.values()) controller.abort();
    record.outbox.close();
    // Closing on purpose: say when to come back (the session is gone, so the client then starts a new one).
    record.getStream?.end(`retry: ${this.core.limits.sseRetryMs}\n\n`);
  }
}
