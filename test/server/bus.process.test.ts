/**
 * Two server nodes sharing one change bus: a change published on one node
 * reaches the listen streams and legacy sessions held by the other.
 */
import { afterEach, expect, it } from 'vitest';
import { createInProcessBus, type ChangeBus, type McpServer } from '../../src/server/index.ts';
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

/** An in-process bus with a read barrier the test holds: records which reads awaited it. */
function heldBarrierBus() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const entered: Array<() => void> = [];
  let waits = 0;
  const bus: ChangeBus = {
    ...createInProcessBus(),
    settled: () => {
      waits++;
      for (const resolve of entered.splice(0)) resolve();
      return gate;
    },
  };
  return {
    bus,
    release,
    get waits() {
      return waits;
    },
    /** Resolves the next time a read enters the barrier. */
    nextWait: () => new Promise<void>((resolve) => entered.push(resolve)),
  };
}

it.each(['modern', 'legacy'] as const)('%s: the refetched reads await the bus read barrier; calls do not', async (era) => {
  const held = heldBarrierBus();
  const server = buildFixtureServer({ name: 'node', bus: held.bus });
  servers.push(server);
  const client = await connectHttp(era, (await server.listenHttp({ port: 0 })).url);
  const waitsAfterConnect = held.waits;
  let entered = held.nextWait();
  const tools = client.listTools();
  await entered;
  entered = held.nextWait();
  const read = client.readResource({ uri: 'test://resource/1' });
  await entered;
  let answered = 0;
  void tools.then(() => answered++);
  void read.then(() => answered++);
  // Answered while both reads are held: a tools/call passes by the barrier.
  expect(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toMatchObject({ content: [{ type: 'text' }] });
  expect(answered).toBe(0);
  expect(held.waits - waitsAfterConnect).toBe(2);
  held.release();
  expect((await tools).tools.some((tool) => tool.name === 'echo')).toBe(true);
  expect((await read).contents).toHaveLength(1);
  await client.listPrompts();
  await client.listResources();
  await client.listResourceTemplates();
  expect(held.waits - waitsAfterConnect).toBe(5);
});
