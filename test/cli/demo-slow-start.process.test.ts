/**
 * The watcher against the bundled demo connects as modern on the first
 * connection even when the demo process starts slower than the client's
 * default 2 s probe (as on a busy machine): the demo always answers
 * `server/discover`, so the watcher waits for that answer instead of taking
 * silence for a legacy server. The slow start is real: every node process of
 * the run is held for 2.5 s before its main module (a preload through
 * NODE_OPTIONS), the CLI and each demo process alike.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fixture, killAllCliRuns, watchCli, type JsonLine } from './cli-process.ts';

afterEach(killAllCliRuns);

const SLOW_START_MS = 2_500;
const at = (event: JsonLine) => Date.parse(event.time);

describe('watch (demo server that starts slowly)', () => {
  it('connects as modern on the first connection and after the demo’s crash', async () => {
    const run = watchCli(['--json', '--tools'], {
      NODE_OPTIONS: `--import=${fixture('slow-start.mjs')}`,
      SLOW_START_MS: String(SLOW_START_MS),
      MCP_ACTORS_DEMO_INTERVAL_MS: '100',
      MCP_ACTORS_DEMO_RESTART_AFTER_MS: '300',
    });
    const { event: spawned } = await run.event((event) => event.type === 'spawned', 'the demo process');
    const { event: connected, index } = await run.event((event) => event.type === 'connected', 'the connected line');
    expect(connected).toMatchObject({ era: 'modern', protocolVersion: '2026-07-28' });
    // Past the default probe: a 2 s probe would have taken this demo for legacy.
    expect(at(connected) - at(spawned)).toBeGreaterThanOrEqual(SLOW_START_MS);
    const { event: reconnected } = await run.event((event) => event.type === 'reconnected', 'reconnected after the crash', index);
    expect(reconnected).toMatchObject({ era: 'modern', generation: 2 });
    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(0);
  }, 60_000);
});
