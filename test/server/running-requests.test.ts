/** The drain's own rules, on fake timers: it waits for what runs, and past its bound aborts what is left. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServerClosingError } from '../../src/server/errors.ts';
import { RunningRequests } from '../../src/server/running-requests.ts';

afterEach(() => vi.useRealTimers());

const exchange = () => {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { controller: new AbortController(), done, finish };
};

describe('RunningRequests', () => {
  it('drains at once when nothing runs, and forgets an exchange once it settled, failed ones too', async () => {
    const running = new RunningRequests();
    expect(await running.drain(1_000)).toBe(0);
    const failing = running.track(new AbortController(), Promise.reject(new Error('handler threw')));
    await expect(failing).rejects.toThrow('handler threw');
    expect(running.size).toBe(0);
  });

  it('does not wait for an exchange whose signal aborted: its client cancelled or left, and gets no answer', async () => {
    const running = new RunningRequests();
    const [cancelled, early] = [exchange(), exchange()];
    early.controller.abort();
    void running.track(early.controller, early.done);
    void running.track(cancelled.controller, cancelled.done);
    const drained = running.drain(10_000);
    cancelled.controller.abort();
    // Neither handler returned, yet nothing is left to wait for.
    expect(await drained).toBe(0);
    expect(running.size).toBe(0);
  });

  it('waits for every running exchange, then resolves without aborting any', async () => {
    vi.useFakeTimers();
    const running = new RunningRequests();
    const [first, second] = [exchange(), exchange()];
    void running.track(first.controller, first.done);
    void running.track(second.controller, second.done);
    let drained: number | undefined;
    void running.drain(10_000).then((count) => (drained = count));
    first.finish();
    await vi.advanceTimersByTimeAsync(9_000);
    expect(drained).toBeUndefined();
    second.finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(drained).toBe(0);
    expect([first.controller.signal.aborted, second.controller.signal.aborted]).toEqual([false, false]);
    // No timer is left behind.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('past its bound, aborts those still running with a ServerClosingError and says how many', async () => {
    vi.useFakeTimers();
    const running = new RunningRequests();
    const [quick, stuck] = [exchange(), exchange()];
    void running.track(quick.controller, quick.done);
    void running.track(stuck.controller, stuck.done);
    const drained = running.drain(10_000);
    quick.finish();
    await vi.advanceTimersByTimeAsync(9_999);
    expect(stuck.controller.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await drained).toBe(1);
    expect(quick.controller.signal.aborted).toBe(false);
    expect(stuck.controller.signal.reason).toBeInstanceOf(ServerClosingError);
    expect((stuck.controller.signal.reason as Error).message).toContain('drainTimeoutMs (10000 ms)');
  });
});
