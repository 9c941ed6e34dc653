import { describe, expect, it } from 'vitest';
import { OpenFetches } from '../../src/transport/open-fetches.ts';

describe('OpenFetches', () => {
  it('aborts the fetch of one request by its id, and only that one', () => {
    const fetches = new OpenFetches();
    const first = fetches.start(1);
    const second = fetches.start('two');
    const notification = fetches.start();
    expect(fetches.abortRequest(1)).toBe(true);
    expect([first.signal.aborted, second.signal.aborted, notification.signal.aborted]).toEqual([true, false, false]);
    expect(fetches.abortRequest(1)).toBe(false);
  });

  it('forgets an ended fetch: its id no longer aborts anything', () => {
    const fetches = new OpenFetches();
    const controller = fetches.start(7);
    fetches.end(controller);
    expect(fetches.abortRequest(7)).toBe(false);
    fetches.abortAll();
    expect(controller.signal.aborted).toBe(false);
  });

  it('keeps a reused id pointing at the newer fetch when the older one ends', () => {
    const fetches = new OpenFetches();
    const older = fetches.start(3);
    const newer = fetches.start(3);
    fetches.end(older);
    expect(fetches.abortRequest(3)).toBe(true);
    expect(newer.signal.aborted).toBe(true);
  });

  it('holds at most one GET stream, and a new one once it ended', () => {
    const fetches = new OpenFetches();
    const get = fetches.startGetStream();
    expect(get).toBeDefined();
    expect(fetches.startGetStream()).toBeUndefined();
    fetches.end(get!);
    expect(fetches.startGetStream()).toBeDefined();
  });

  it('aborts every open fetch, the GET stream included, and starts empty after', () => {
    const fetches = new OpenFetches();
    const controllers = [fetches.start(1), fetches.start(), fetches.startGetStream()!];
    fetches.abortAll();
    expect(controllers.map((c) => c.signal.aborted)).toEqual([true, true, true]);
    expect(fetches.abortRequest(1)).toBe(false);
    expect(fetches.startGetStream()).toBeDefined();
  });
});
