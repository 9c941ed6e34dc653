/**
 * `client.listen` without the client: create a stream on a connection, tie
 * it to an abort signal, and resolve once the server acknowledged it.
 */
import { RequestAbortedError } from '../protocol/errors.ts';
import type { DeliveryTarget } from './mailbox.ts';
import { createListenStream, type IterableListenStream, type ListenOptions, type ListenStream, type StreamConnection } from './subscription.ts';

/**
 * Opens a stream and resolves once the server acknowledged it. Rejects with
 * WrongEraError or FilterError (nothing sent), with RequestAbortedError when
 * `signal` aborts before the acknowledgment, or with the opening error.
 * Aborting later closes the stream as `close()` does (reason `local`).
 */
export function openSubscription(port: StreamConnection, filter: unknown, subscriber: 'iterator', options?: ListenOptions): Promise<IterableListenStream>;
export function openSubscription(port: StreamConnection, filter: unknown, subscriber: DeliveryTarget, options?: ListenOptions): Promise<ListenStream>;
export async function openSubscription(port: StreamConnection, filter: unknown, subscriber: DeliveryTarget, options: ListenOptions = {}): Promise<ListenStream> {
  const { signal, ...streamOptions } = options;
  if (signal?.aborted) throw new RequestAbortedError('subscriptions/listen', { cause: signal.reason });
  const stream = createListenStream(port, filter, subscriber, streamOptions);
  if (signal) {
    const onAbort = () => stream.close();
    signal.addEventListener('abort', onAbort, { once: true });
    void stream.closed.then(() => signal.removeEventListener('abort', onAbort));
  }
  try {
    await stream.acknowledged;
  } catch (error) {
    if (signal?.aborted) throw new RequestAbortedError('subscriptions/listen', { cause: signal.reason });
    throw error;
  }
  return stream;
}
