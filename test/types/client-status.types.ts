/** Type tests for the client's state union, status() and on(type, handler) (see type-tests.test.ts). */
import { expectTypeOf } from 'vitest';
import type { ClientEvent, ClientState, ClientStatus, ConnectionClosedReason, Era, McpClient } from '../../src/index.ts';

declare const client: McpClient;

// Derived from the connection machine's type: its leaf states, dotted.
expectTypeOf<ClientState>().toEqualTypeOf<
  | 'idle'
  | 'offline'
  | 'reconnecting'
  | 'closed'
  | 'online.connecting'
  | 'online.negotiating'
  | 'online.switchingEra'
  | 'online.ready.choosing'
  | 'online.ready.legacy'
  | 'online.ready.modern'
>();
expectTypeOf(client.state).toEqualTypeOf<ClientState>();
// @ts-expect-error: a state the machine does not have is a compile error
const misspelt: ClientState = 'online.ready.moder';
void misspelt;
// @ts-expect-error: comparing with one is too
if (client.state === 'connected') void client;

expectTypeOf(client.status()).toEqualTypeOf<AsyncIterable<ClientStatus>>();
declare const status: ClientStatus;
if (status.state === 'closed') expectTypeOf(status.reason).toEqualTypeOf<ConnectionClosedReason>();
if (status.state === 'online.ready.modern') expectTypeOf(status.era).toEqualTypeOf<'modern'>();
if (status.state === 'reconnecting') expectTypeOf(status.era).toEqualTypeOf<Era | undefined>();

client.on('connection.ready', (event) => {
  expectTypeOf(event.era).toEqualTypeOf<Era>();
  expectTypeOf(event.generation).toEqualTypeOf<number>();
});
client.on('connection.closed', (event) => expectTypeOf(event.reason).toEqualTypeOf<ConnectionClosedReason>());
client.on('connection.reconnecting', (event) => expectTypeOf(event.attempt).toEqualTypeOf<number>());
client.on('connection.reconnecting', (event) => expectTypeOf(event.quickReadies).toEqualTypeOf<number>());
client.on('*', (event) => expectTypeOf(event).toEqualTypeOf<ClientEvent>());
expectTypeOf(client.on('connection.lost', () => {})).toEqualTypeOf<{ unsubscribe(): void }>();
// @ts-expect-error: errors are not lifecycle events; they go to onError
client.on('error', () => {});
// @ts-expect-error: a misspelt event type
client.on('connection.redy', () => {});
client.onError((error) => expectTypeOf(error).toEqualTypeOf<Error>());
// @ts-expect-error: the old on(fn) is gone
client.on((event: ClientEvent) => void event);
// @ts-expect-error: disconnect() is gone; close() it is
void client.disconnect();
