/**
 * `watch --inspect`: the local inspector's live feed (Server-Sent Events, read
 * here over loopback HTTP) carries the live actors (the connection, the change
 * cache, the URI worker, each subscription or listener) with their
 * statecharts and their transitions, including the connection's reconnect
 * after the server dies. The server listens on loopback only unless told,
 * answers only its own host names, and says so when it is not on loopback.
 */
import { request } from 'node:http';
import { createServer, type Server } from 'node:net';
import { createParser } from 'eventsource-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FeedMessage } from '../../src/inspector/inspection-feed.ts';
import { fastDemoEnv, killAllCliRuns, killCliRunsExcept, watchCli, watchInspected, type CliRun } from './cli-process.ts';
import { ReceivedMessages } from './received-messages.ts';

type Inspected = Awaited<ReturnType<typeof watchInspected>>;

// One modern watcher for two tests (a run is a CLI and a demo process): the host-name test only asks its page server,
// then the modern feed test reads the feed from the present it replays, kills the demo and ends the watcher (SIGINT).
let modern: Inspected | undefined;
beforeAll(async () => {
  modern = await watchInspected('modern');
});
afterAll(killAllCliRuns);

const servers: Server[] = [];
const feeds: AbortController[] = [];
afterEach(async () => {
  for (const feed of feeds.splice(0)) feed.abort();
  await killCliRunsExcept(new Set<CliRun | undefined>([modern?.run]));
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Everything the feed sent, and a way to wait for something in it. */
async function receive(url: string) {
  const received = new ReceivedMessages<FeedMessage>('the feed');
  const abort = new AbortController();
  feeds.push(abort);
  const response = await fetch(url, { signal: abort.signal });
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const parser = createParser({
    onEvent: (event) => received.push(JSON.parse(event.data) as FeedMessage),
  });
  void (async () => {
    const decoder = new TextDecoder();
    const reader = response.body!.getReader();
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) parser.feed(decoder.decode(chunk.value, { stream: true }));
    } catch {
      // Aborted at the end of the test.
    }
  })();
  return received;
}

const sessionsOf = (messages: FeedMessage[], machine: string) =>
  messages.flatMap((message) => (message.type === 'actor' && message.machine.id === machine ? [message.session] : []));

/** The deepest state paths of each state message of `machine`'s actors. */
const statesOf = (messages: FeedMessage[], machine: string) => {
  const sessions = sessionsOf(messages, machine);
  return messages.flatMap((message) =>
    message.type === 'state' && sessions.includes(message.session)
      ? [message.states.filter((path) => !message.states.some((other) => other.startsWith(`${path}.`))).join('+')]
      : [],
  );
};

const ERAS = [
  { era: 'modern', stream: 'subscription', active: 'listening.active' },
  { era: 'legacy', stream: 'listener', active: 'active' },
] as const;

describe('watch --inspect', () => {
  it('answers only its own host names (no DNS rebinding) and only GET', async () => {
    const url = new URL(modern!.url);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>mcp-actors inspector</title>');
    // fetch cannot set Host; node:http can, as a browser does for a rebound name.
    const rebound = await new Promise<number>((resolve, reject) =>
      request(url, { headers: { host: `attacker.example:${url.port}` } }, (response) => resolve(response.resume().statusCode!)).on('error', reject).end(),
    );
    expect(rebound).toBe(421);
    expect((await fetch(url, { method: 'POST' })).status).toBe(405);
    expect((await fetch(new URL('/nothing', url))).status).toBe(404);
    // The watcher goes on for the modern feed test, which ends it.
    expect(modern!.run.child.exitCode).toBeNull();
  });

  it.each(ERAS)('$era: the feed carries the connection, cache, URI worker and $stream actors, their statecharts and their transitions', async ({ era, stream, active }) => {
    const { run, url, feed: feedUrl } = era === 'modern' ? modern! : await watchInspected(era);
    expect(feedUrl).toBe(`${url}feed`);
    const feed = await receive(feedUrl);

    await feed.until((messages) => statesOf(messages, 'connection').includes(`online.ready.${era}`), 'a ready connection');
    await feed.until((messages) => statesOf(messages, stream).includes(active), `an active ${stream}`);
    await feed.until((messages) => statesOf(messages, 'cache').includes('listening.open'), 'a listening cache');
    expect(sessionsOf(feed.seen, 'uriWorker')).toHaveLength(1);
    const connection = feed.seen.find((message) => message.type === 'actor' && message.machine.id === 'connection');
    expect(connection).toMatchObject({ name: 'connection', machine: { root: { children: expect.arrayContaining([expect.objectContaining({ key: 'reconnecting', path: 'reconnecting' })]) } } });

    // Transitions arrive live: kill the server and watch the connection reconnect.
    await run.event((event) => event.type === 'list', 'the first lists');
    process.kill(run.serverPids[0]!, 'SIGKILL');
    await feed.until((messages) => statesOf(messages, 'connection').includes('reconnecting'), 'the connection reconnecting');
    await feed.until((messages) => statesOf(messages, stream).includes('paused'), `a paused ${stream}`);
    expect(feed.seen.some((message) => message.type === 'event' && message.event === 'transport.failed')).toBe(true);

    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(0);
  });

  it('--inspect-host other than loopback prints a warning line', async () => {
    const run = watchCli(['--inspect-host', '0.0.0.0', '--inspect-port', '0'], { ...fastDemoEnv(0), MCP_ACTORS_DEMO_INTERVAL_MS: '60000', NO_COLOR: '1' });
    await run.until(() => (/⚠ the inspector is not on a loopback address/.test(run.stdout) ? true : undefined), 'the warning');
    expect(run.stdout).toMatch(/◎ inspector open http:\/\/0\.0\.0\.0:\d+\/ in a browser/);
    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(0);
  });

  it('a busy inspector port is a one-line error', async () => {
    const busy = createServer();
    servers.push(busy);
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    const run = watchCli(['--inspect-port', String(port)], fastDemoEnv(0));
    expect((await run.exited).code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^mcp-actors: inspector port ${port} is not available on 127\\.0\\.0\\.1; pick another with --inspect-port or --inspect-host \\(EADDRINUSE 127\\.0\\.0\\.1:${port}\\)\\n$`));
  });
});
