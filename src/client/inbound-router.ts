/**
 * Routes inbound notifications. The most specific route wins: a frame tagged
 * with a subscription id this client holds goes to that stream and nothing
 * else; a progress token claimed by a call goes to that call; everything else
 * falls through to the fallback handlers registered for its method.
 */
import { asError } from '../../machines/errors.ts';
import type { JsonObject, JsonRpcNotification, RequestId } from '../protocol/jsonrpc.ts';
import { MetaKey } from '../protocol/versions.ts';
import { validateFilter, type FilterError, type NotificationFilter } from '../protocol/filter.ts';
import type { ListenHandlers } from './ports.ts';

export type NotificationHandler = (params: JsonObject, method: string) => void;

const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';
const CANCELLED = 'notifications/cancelled';
const PROGRESS = 'notifications/progress';
const EMPTY: JsonObject = Object.freeze({}) as JsonObject;

export class InboundRouter {
  readonly streams = new Map<RequestId, ListenHandlers>();
  readonly progress = new Map<RequestId, (params: JsonObject) => void>();
  readonly #fallback = new Map<string, Set<NotificationHandler>>();

  constructor(private readonly reportError: (error: Error) => void) {}

  /** Adds a fallback handler for one method (`*` for every method); returns its removal. */
  onNotification(method: string, handler: NotificationHandler): () => void {
    let handlers = this.#fallback.get(method);
    if (!handlers) this.#fallback.set(method, (handlers = new Set()));
    handlers.add(handler);
    return () => handlers.delete(handler);
  }

  route(notification: JsonRpcNotification): void {
    const method = notification.method;
    const params = notification.params ?? EMPTY;
    if (method === CANCELLED) {
      // By the request it cancels, whether or not the server also tagged it with the stream's id.
      const stream = this.streams.get(params.requestId as RequestId);
      if (stream) return stream.cancelled(typeof params.reason === 'string' ? params.reason : undefined);
      return this.#fallbackFor(method, params);
    }
    const meta = params._meta as JsonObject | undefined;
    const subscriptionId = meta?.[MetaKey.subscriptionId] as RequestId | undefined;
    if (subscriptionId !== undefined) {
      const stream = this.streams.get(subscriptionId);
      if (stream) {
        if (method === ACKNOWLEDGED) this.#acknowledge(stream, params.notifications);
        else stream.notification(method, params);
        return;
      }
    } else if (method === PROGRESS) {
      const onProgress = this.progress.get(params.progressToken as RequestId);
      if (onProgress) return this.#call(() => onProgress(params));
    }
    this.#fallbackFor(method, params);
  }

  /** The honored filter is untrusted input too: a malformed one is reported to the stream as such, with a typed error. */
  #acknowledge(stream: ListenHandlers, notifications: unknown): void {
    let honored: NotificationFilter;
    try {
      honored = validateFilter(notifications ?? {}, { allowTaskIds: true, acknowledged: true });
    } catch (error) {
      return stream.malformedAcknowledgment(error as FilterError);
    }
    stream.acknowledged(honored);
  }

  #fallbackFor(method: string, params: JsonObject): void {
    const handlers = this.#fallback.get(method);
    if (handlers) for (const handler of handlers) this.#call(() => handler(params, method));
    const any = this.#fallback.get('*');
    if (any) for (const handler of any) this.#call(() => handler(params, method));
  }

  #call(deliver: () => void): void {
    try {
      deliver();
    } catch (error) {
      this.reportError(asError(error));
    }
  }
}
