/**
 * Two server nodes sharing one change bus: a change published on one node
 * reaches the listen streams and legacy sessions held by the other.
 */
import { afterEach, expect, it } from 'vitest';
import { createInProcessBus, type McpServer } from '../../src/server/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { ALL_CHANGES, closeAllPeers, connectHttp, NotificationLog, RESOURCE_UPDATED, TOOLS_CHANGED } from './official-peers.ts';

const servers: McpServer[] = [];
afterEach(async () => {
  await closeAllPeers();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

it('delivers a change published on node A to streams and sessions held by node B', async () => {
  const bus = createInProcessBus();
  const nodeA = buildFixtureServer({ name: 'node-a', bus });
  const nodeB = buildFixtureServer({ name: 'node-b', bus });
  servers.push(nodeA, nodeB);
  const urlB = (await nodeB.listenHttp({ port: 0 })).url;
  const modern = await connectHttp('modern', urlB, 'modern');
  const legacy = await connectHttp('legacy', urlB, 'legacy');
  const modernLog = new NotificationLog(modern, ALL_CHANGES);
  const legacyLog = new NotificationLog(legacy, ALL_CHANGES);
  await modern.listen({ toolsListChanged: true, resourceSubscriptions: ['test://resource/4'] });
  await legacy.subscribeResource({ uri: 'test://resource/4' });

  nodeA.notifyResourceUpdated('test://resource/4');
  nodeA.notifyToolsListChanged();
  await Promise.all([modernLog.waitFor(TOOLS_CHANGED), legacyLog.waitFor(TOOLS_CHANGED)]);
  expect(modernLog.methods()).toEqual([RESOURCE_UPDATED, TOOLS_CHANGED]);
  expect(legacyLog.methods()).toEqual([RESOURCE_UPDATED, TOOLS_CHANGED]);
});

it('keeps nodes on separate buses apart', async () => {
  const nodeA = buildFixtureServer({ name: 'node-a' });
  const nodeB = buildFixtureServer({ name: 'node-b' });
  servers.push(nodeA, nodeB);
  const client = await connectHttp('modern', (await nodeB.listenHttp({ port: 0 })).url);
  const log = new NotificationLog(client, ALL_CHANGES);
  await client.listen({ toolsListChanged: true, promptsListChanged: true });
  nodeA.notifyToolsListChanged();
  nodeB.notifyPromptsListChanged();
  await log.waitFor('notifications/prompts/list_changed');
  expect(log.methods()).toEqual(['notifications/prompts/list_changed']);
});
