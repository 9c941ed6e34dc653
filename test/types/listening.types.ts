/** Type tests for the listening idiom: no subscriber means an iterable stream or reference (see type-tests.test.ts). */
import { expectTypeOf } from 'vitest';
import type { IterableListenerRef, IterableListenStream, ListenerRef, ListenStream, McpClient, SubscriberMessage } from '../../src/index.ts';

declare const client: McpClient;

expectTypeOf(client.listen({ toolsListChanged: true })).resolves.toEqualTypeOf<IterableListenStream>();
expectTypeOf(client.listen({ toolsListChanged: true }, { mailboxCap: 8 })).resolves.toEqualTypeOf<IterableListenStream>();
expectTypeOf(client.listen({ toolsListChanged: true }, (message) => {
  expectTypeOf(message).toEqualTypeOf<SubscriberMessage>();
})).resolves.toEqualTypeOf<ListenStream>();
expectTypeOf(client.subscribeNotifications({ toolsListChanged: true })).resolves.toEqualTypeOf<IterableListenerRef>();
expectTypeOf(client.subscribeNotifications({ toolsListChanged: true }, () => undefined)).resolves.toEqualTypeOf<ListenerRef>();
// @ts-expect-error: the magic 'iterator' argument is gone: omit the subscriber to iterate
void client.listen({ toolsListChanged: true }, 'iterator');
// @ts-expect-error: a stream given a callback is not iterable
void (async () => { for await (const message of await client.listen({ toolsListChanged: true }, () => undefined)) void message; })();
