/**
 * Requests a legacy-era session sends to its client on behalf of handlers
 * (`sampling/createMessage`, `elicitation/create`, `roots/list`): each gets
 * its own id, is written on the asking request's channel (stdio: the
 * connection; HTTP: that POST's response stream, as the 2025-11-25 transport
 * allows for messages related to the request), and is settled by the client's
 * response routed back here by id. Each one's life is a client-request
 * machine, which owns the timeout; when the asking request is cancelled or the
 * wait times out, the client is told with `notifications/cancelled`.
 */
import { setMaxListeners } from 'node:events';
import { createActor, toPromise, type Actor } from 'xstate';
import { clientRequestMachine, type ClientRequestOutcome } from '../../machines/client-request.machine.ts';
import type { JsonObject, JsonRpcResponse } from '../protocol/jsonrpc.ts';
import type { ClientAsker, ClientMethod } from './client-input.ts';
import { ClientRequestCancelledError, ClientRequestRefusedError, ClientRequestTimeoutError } from './errors.ts';
import { requestKey } from './json-values.ts';
import type { ReplyChannel } from './request-context.ts';

export class ClientRequests {
  private sent = 0;
  private readonly pending = new Map<string, Actor<typeof clientRequestMachine>>();

  /**
   * `tellClient` writes an unsolicited message to the session (the cancel
   * notices: by then the asking request's own channel may be closed).
   */
  constructor(private readonly timeoutMs: number, private readonly tellClient: (json: string) => void) {}

  /** The asker for one request of this session: its channel carries the asks, its signal cancels them. */
  askerFor(channel: ReplyChannel, signal: AbortSignal): ClientAsker {
    // Each ask waits on the request's signal (ours, one per request): a handler may ask many at once, past Node's
    // default of 10 listeners, which would warn of a leak.
    setMaxListeners(0, signal);
    return { refusesUndeclared: 'handler_failure', ask: (method, params) => this.send(method, params, channel, signal) };
  }

  /** Settles the request a client response answers; false when it answers none pending (late, unknown or duplicate). */
  settle(response: JsonRpcResponse): boolean {
    if (response.id === null) return false;
    const actor = this.pending.get(requestKey(response.id));
    if (!actor) return false;
    if ('error' in response) actor.send({ type: 'response.error', error: response.error });
    else actor.send({ type: 'response.result', result: response.result });
    return true;
  }

  /** The session ended: nothing pending will be answered. */
  close(): void {
    for (const actor of [...this.pending.values()]) {
      // Not to one its asking request's abort already settled (it leaves `pending` a microtask later).
      if (isActive(actor)) actor.send({ type: 'peer.gone' });
    }
  }

  private async send(method: ClientMethod, params: JsonObject, channel: ReplyChannel, signal: AbortSignal): Promise<JsonObject> {
    if (signal.aborted) throw new ClientRequestCancelledError(method, 'request_cancelled');
    this.sent += 1;
    // Our own prefix keeps these ids apart from any the client uses for its requests.
    const id = `mcp-actors-${this.sent}`;
    const key = requestKey(id);
    // Serialized first: params JSON cannot carry fail the ask before anything is started for it.
    const frame = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    // Sent before its wait starts, which is safe: an answer comes in a later turn of the event loop at the earliest.
    if (!sendAsk(channel, frame)) throw new ClientRequestCancelledError(method, 'no_stream');
    const actor = createActor(clientRequestMachine, { input: { timeoutMs: this.timeoutMs } });
    this.pending.set(key, actor);
    // Not to one its session's end already settled (it leaves `pending` a microtask later).
    const onAbort = () => isActive(actor) && actor.send({ type: 'asker.cancelled', reason: signal.reason });
    signal.addEventListener('abort', onAbort, { once: true });
    actor.start();
    let outcome: ClientRequestOutcome;
    try {
      outcome = await toPromise(actor);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.pending.delete(key);
    }
    return this.conclude(method, id, outcome);
  }

  private conclude(method: ClientMethod, id: string, outcome: ClientRequestOutcome): JsonObject {
    switch (outcome.type) {
      case 'answered':
        // The shape is checked by the caller (client-input.ts), for both eras alike.
        return outcome.result as JsonObject;
      case 'refused':
        throw new ClientRequestRefusedError(method, outcome.error);
      case 'timed_out':
        this.tellClient(cancelledFrame(id, `no answer within ${outcome.timeoutMs} ms`));
        throw new ClientRequestTimeoutError(method, outcome.timeoutMs);
      case 'cancelled':
        this.tellClient(cancelledFrame(id, 'the request that asked was cancelled'));
        throw new ClientRequestCancelledError(method, 'request_cancelled');
      case 'peer_gone':
        throw new ClientRequestCancelledError(method, 'session_ended');
    }
  }
}

/** Puts a handler's ask on its way: false when its channel has nowhere to send it now. */
function sendAsk(channel: ReplyChannel, frame: string): boolean {
  if (channel.sendRequest) return channel.sendRequest(frame);
  void channel.notify(frame);
  return true;
}

const cancelledFrame = (requestId: string, reason: string): string =>
  JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } });

/** An ask still waiting: events sent to one that settled would only make xstate warn. */
const isActive = (actor: Actor<typeof clientRequestMachine>): boolean => actor.getSnapshot().status === 'active';
