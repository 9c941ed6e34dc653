/**
 * One scenario of own-stack.process.test.ts (a real stdio child killed) and
 * own-stack.test.ts (an in-memory link cut): the client listens, receives a
 * change, loses its server, reconnects, and receives the next change.
 */
import { expect } from 'vitest';
import type { McpClient } from '../../src/client/client.ts';
import type { Era } from '../../src/protocol/versions.ts';
import { collect } from '../fixtures/message-collector.ts';

/** The reconnection the scenario's client is made with: patient enough for a child's restart. */
export const RESTART_RECONNECT = { maxAttempts: 5, baseDelayMs: 10, maxDelayMs: 50 } as const;

const emit = (client: McpClient, kind: string, uri?: string) => client.callTool('emit', { kind, ...(uri ? { uri } : {}) });

/** Runs the scenario on a connected `client` of `era`; `loseServer` ends its server as a dead process. */
export async function listensAcrossRestart(client: McpClient, era: Era, loseServer: () => void): Promise<void> {
  expect(client.era).toBe(era);
  const box = collect();
  if (era === 'modern') await client.listen({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] }, box.subscriber);
  else await client.subscribeNotifications({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] }, box.subscriber);
  await emit(client, 'tools');
  await box.until(() => box.count('notification') === 1);
  loseServer();
  await box.until(() => box.count('reconnected') === 1);
  await emit(client, 'updated', 'test://resource/1');
  await box.until(() => box.count('notification') === 2);
  expect(box.messages.at(-1)).toMatchObject({ type: 'notification', params: { uri: 'test://resource/1' } });
}
