/**
 * `mcp-actors watch URL` against the demo server over Streamable HTTP on
 * loopback (served by this test process, the CLI a child), in both eras.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoServer, type DemoServer } from '../../src/demo/demo-catalog.ts';
import type { HttpServerHandle } from '../../src/server/index.ts';
import { killAllCliRuns, watchCli } from './cli-process.ts';

let demo: DemoServer | undefined;
let stopSchedule: (() => void) | undefined;
afterEach(async () => {
  await killAllCliRuns();
  stopSchedule?.();
  await demo?.server.close();
  demo = undefined;
  stopSchedule = undefined;
});

async function serveDemo(): Promise<HttpServerHandle> {
  demo = createDemoServer();
  stopSchedule = demo.startSchedule(100);
  return demo.server.listenHttp({ port: 0 });
}

describe.each(['modern', 'legacy'] as const)('watch over HTTP (%s era)', (era) => {
  it('prints the era line, a notification and a tools diff, and exits 0 on SIGINT', async () => {
    const { url } = await serveDemo();
    const run = watchCli(['--json', '--era', era, url]);
    const { event: connected } = await run.event((event) => event.type === 'connected', 'the connected line');
    expect(connected).toMatchObject({ era, server: { name: 'mcp-actors-demo' }, changes: { toolsListChanged: true, resourceSubscribe: true } });
    await run.event((event) => event.type === 'notification' && event.method === 'notifications/tools/list_changed', 'a tools notification');
    await run.event((event) => event.type === 'list_diff' && event.list === 'tools', 'a tools diff');
    await run.event((event) => event.type === 'resource_updated' && event.uri === 'demo://clock', 'a clock update');
    expect(run.events.some((event) => event.type === 'spawned')).toBe(false);

    run.child.kill('SIGINT');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.events.at(-1)).toMatchObject({ type: 'closed', reason: 'disconnected' });
  });
});
