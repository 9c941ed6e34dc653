/**
 * A subscriber to one of the request tracing channels, as an APM would be: every event, in order, until `stop`.
 * Each holds the trace object (the same one from start to end) and `seen`, a copy of it as it was at that event.
 */
import { tracingChannel } from 'node:diagnostics_channel';

/** The phases the tests read (node's tracing channels also have `end` and `asyncStart`). */
type Phase = 'start' | 'error' | 'asyncEnd';

export function recordTraces<Trace extends object>(name: string): { events: { phase: Phase; trace: Trace; seen: Trace }[]; stop(): void } {
  const events: { phase: Phase; trace: Trace; seen: Trace }[] = [];
  const channel = tracingChannel<object, Trace>(name);
  const handlers = {
    start: (trace: Trace) => void events.push({ phase: 'start', trace, seen: { ...trace } }),
    end: () => {},
    asyncStart: () => {},
    asyncEnd: (trace: Trace) => void events.push({ phase: 'asyncEnd', trace, seen: { ...trace } }),
    error: (trace: Trace) => void events.push({ phase: 'error', trace, seen: { ...trace } }),
  };
  channel.subscribe(handlers);
  return { events, stop: () => channel.unsubscribe(handlers) };
}
