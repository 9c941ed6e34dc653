/**
 * `watch --inspect`: a local @statelyai/inspect receiver connected to the
 * inspector the CLI starts sees the live actors (the connection, the change
 * cache, the URI worker, each subscription) and their
 * transitions, including the connection's reconnect after the server dies.
 */
import { createServer, type Server } from 'node:net';
import { createWebSocketReceiver, type StatelyInspectionEvent } from '@statelyai/inspect';
import { afterEach, describe, expect, it } from 'vitest';
import { fastDemoEnv, killAllCliRuns, watchCli } from './cli-process.ts';

const servers: Server[] = [];
afterEach(async () => {
  await killAllCliRuns();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

function listenOnFreePort(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    servers.push(server);
    server.listen(0, () => resolve(server));
  });
}

const portOf = (server: Server) => (server.address() as { port: number }).port;

async function freePort(): Promise<number> {
  const server = await listenOnFreePort();
  const port = portOf(server);
  await new Promise((resolve) => server.close(resolve));
  servers.splice(servers.indexOf(server), 1);
  return port;
}

/** Everything a receiver saw, and a way to wait for something in it. */
function receive(websocket: string) {
  const seen: StatelyInspectionEvent[] = [];
  const waiters = new Set<() => void>();
  createWebSocketReceiver({ server: websocket }).subscribe((event) => {
    seen.push(event);
    for (const waiter of [...waiters]) waiter();
  });
  const until = (check: (events: StatelyInspectionEvent[]) => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the receiver never saw ${what}`)), 15_000);
      const waiter = () => {
        if (!check(seen)) return;
        clearTimeout(timer);
        waiters.delete(waiter);
        resolve();
      };
      waiters.add(waiter);
      waiter();
    });
  return { seen, until };
}

const actorNamed = (events: StatelyInspectionEvent[], name: string) =>
  events.filter((event) => event.type === '@xstate.actor' && event.name === name).map((event) => event.sessionId);

const statesOf = (events: StatelyInspectionEvent[], sessionIds: string[]) =>
  events
    .flatMap((event) => (event.type === '@xstate.snapshot' && sessionIds.includes(event.sessionId) ? [event] : []))
    .map((event) => JSON.stringify((event.snapshot as { value?: unknown }).value));

const ERAS = [
  { era: 'modern', stream: 'subscription', active: '{"listening":"active"}' },
  { era: 'legacy', stream: 'listener', active: '"active"' },
] as const;

describe('watch --inspect', () => {
  it.each(ERAS)('$era: a WebSocket receiver sees the connection, cache, URI worker and $stream actors and their transitions', async ({ era, stream, active }) => {
    const port = await freePort();
    // One change a minute: the receiver's view is the actors, not the traffic.
    const run = watchCli(['--json', '--era', era, '--inspect-port', String(port)], { ...fastDemoEnv(0), MCP_ACTORS_DEMO_INTERVAL_MS: '60000' });
    const { event: announced } = await run.event((event) => event.type === 'inspector', 'the inspector line');
    expect(announced).toMatchObject({ url: `http://localhost:${port}`, websocket: `ws://localhost:${port}` });
    const receiver = receive(announced.websocket as string);

    await receiver.until((events) => statesOf(events, actorNamed(events, 'connection')).includes(`{"online":{"ready":"${era}"}}`), 'a ready connection');
    await receiver.until((events) => statesOf(events, actorNamed(events, stream)).includes(active), `an active ${stream}`);
    await receiver.until((events) => statesOf(events, actorNamed(events, 'cache')).includes('{"listening":"open"}'), 'a listening cache');
    expect(actorNamed(receiver.seen, 'uriWorker')).toHaveLength(1);

    // Transitions arrive live: kill the server and watch the connection reconnect.
    await run.event((event) => event.type === 'list', 'the first lists');
    process.kill(run.serverPids[0]!, 'SIGKILL');
    await receiver.until((events) => statesOf(events, actorNamed(events, 'connection')).includes('"reconnecting"'), 'the connection reconnecting');
    await receiver.until((events) => statesOf(events, actorNamed(events, stream)).includes('"paused"'), `a paused ${stream}`);

    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(0);
  });

  it('a busy inspector port is a one-line error', async () => {
    const busy = await listenOnFreePort();
    const run = watchCli(['--inspect-port', String(portOf(busy))], fastDemoEnv(0));
    expect((await run.exited).code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^mcp-actors: inspector port ${portOf(busy)} is not available \\(EADDRINUSE\\); pick another with --inspect-port\\n$`));
  });
});
