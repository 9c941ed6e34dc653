/**
 * The shared server state on its own: what a listen gets while the server closes,
 * and a listen stream's lifecycle as the inspector sees it.
 */
import type { InspectionEvent } from 'xstate';
import { expect, it } from 'vitest';
import { ServerCore } from '../../src/server/core.ts';
import type { StreamEndReason } from '../../src/server/listen-stream.ts';
import { Outbox } from '../../src/server/outbox.ts';
import { LimitExceededError, ServerClosingError } from '../../src/server/errors.ts';

it('refuses a new listen stream while closing with its own error, not a limit', async () => {
  const core = new ServerCore({ name: 'core', version: '1' });
  await core.close();
  let thrown: unknown;
  try {
    core.assertRoomForStream();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ServerClosingError);
  expect(thrown).not.toBeInstanceOf(LimitExceededError);
  expect((thrown as ServerClosingError).httpStatus).toBe(503);
  expect((thrown as ServerClosingError).toJson()).toEqual({ code: -32000, message: 'Server is shutting down: no new listen streams' });
});

it('runs each listen stream as an actor the inspector sees, writing its completion when the machine asks and unindexing it once flushed', async () => {
  const seen: InspectionEvent[] = [];
  const core = new ServerCore({ name: 'core', version: '1', inspect: (event) => seen.push(event) });
  const written: string[] = [];
  const sink = { write: (chunk: string) => (written.push(chunk), true), once: () => undefined };
  const outbox = new Outbox(sink, (json) => `${json}\n`, 16);
  const ended: StreamEndReason[] = [];
  const stream = core.openStream('l1', { toolsListChanged: true }, outbox, { kind: 'stdio', streamEnded: (_stream, reason) => ended.push(reason) });
  expect(core.streams.size).toBe(1);
  expect(await stream.complete()).toEqual({ type: 'completed' });
  expect(ended).toEqual([{ type: 'completed' }]);
  expect(core.streams.size).toBe(0);
  const lines = written.join('').trim().split('\n').map((line) => JSON.parse(line) as { method?: string; result?: { resultType?: string } });
  expect(lines.map((line) => line.method ?? line.result?.resultType)).toEqual(['notifications/subscriptions/acknowledged', 'complete']);
  const states = seen.flatMap((event) => (event.type === '@xstate.snapshot' ? [(event.snapshot as { value?: unknown }).value] : []));
  expect(states).toEqual(['acknowledging', 'open', 'closing', 'closed']);
  // Later publishes reach nobody: the stream left the index.
  core.index.fanOut({ type: 'tools_list_changed' });
  await outbox.flushed();
  expect(written.join('').trim().split('\n')).toHaveLength(2);
});
