/**
 * `mcp-actors watch URL` against the demo server over Streamable HTTP on
 * loopback (served by this test process, the CLI a child), in both eras.
 * No schedule runs: the test applies each demo change with `step()` once the
 * CLI has reported the previous one, so every change follows an explicit event.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoServer, DEMO_CLOCK_URI, type DemoServer } from '../../src/demo/demo-catalog.ts';
import type { HttpServerHandle } from '../../src/server/index.ts';
import { killAllCliRuns, watchCli, type JsonLine } from './cli-process.ts';

let demo: DemoServer | undefined;
afterEach(async () => {
  await killAllCliRuns();
  await demo?.server.close();
  demo = undefined;
});

async function serveDemo(): Promise<{ demo: DemoServer; http: HttpServerHandle }> {
  demo = createDemoServer();
  return { demo, http: await demo.server.listenHttp({ port: 0 }) };
}

const isDiff = (list: string, field: 'added' | 'removed' | 'changed', name: string) => (event: JsonLine) =>
  event.type === 'list_diff' && event.list === list && (event[field] as string[]).includes(name);

describe.each(['modern', 'legacy'] as const)('watch over HTTP (%s era)', (era) => {
  it('prints the era line, a notification and a tools diff, and exits 0 on SIGINT', async () => {
    const { demo, http } = await serveDemo();
    const run = watchCli(['--json', '--era', era, http.url]);
    const { event: connected } = await run.event((event) => event.type === 'connected', 'the connected line');
    expect(connected).toMatchObject({ era, server: { name: 'mcp-actors-demo' }, changes: { toolsListChanged: true, resourceSubscribe: true } });
    // The first reads, so that each change below shows as a change.
    await run.event((event) => event.type === 'list' && event.list === 'tools', 'the tools listed');
    await run.event((event) => event.type === 'list' && event.list === 'prompts', 'the prompts listed');
    await run.event((event) => event.type === 'resource_updated' && event.uri === DEMO_CLOCK_URI, 'the clock read');

    // Each diff is reported once the stream is open (by its notification, or by the refetch its opening starts),
    // so the later changes reach an open stream.
    let from = run.events.length;
    demo.step(); // forecast added
    await run.event(isDiff('tools', 'added', 'forecast'), 'forecast added', from);
    from = run.events.length;
    demo.step(); // greeting reworded
    await run.event(isDiff('prompts', 'changed', 'greeting'), 'greeting changed', from);
    from = run.events.length;
    demo.step(); // clock updated
    await run.event((event) => event.type === 'resource_updated' && event.uri === DEMO_CLOCK_URI, 'a clock update', from);
    from = run.events.length;
    demo.step(); // forecast removed
    await run.event((event) => event.type === 'notification' && event.method === 'notifications/tools/list_changed', 'a tools notification', from);
    await run.event(isDiff('tools', 'removed', 'forecast'), 'forecast removed', from);
    expect(run.events.some((event) => event.type === 'spawned')).toBe(false);

    run.child.kill('SIGINT');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.events.at(-1)).toMatchObject({ type: 'closed', reason: 'disconnected' });
  });
});
