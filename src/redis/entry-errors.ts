/**
 * What the bus reports about entries of the shared stream it did not write
 * the way a bus writes them: the stream is writable by anyone with access to
 * the key, and by a buggy node. A node reports each such entry (the bus's
 * `log`, with a StreamEntryError) and reads on; none stops its delivery.
 */
import { McpActorsError } from '../protocol/errors.ts';

/** The most an event may take as JSON (UTF-8): a longer one is refused at `publish`, and skipped when read. */
export const MAX_EVENT_BYTES = 1024 * 1024;

/**
 * Why an entry is not what its header says.
 *
 * - `malformed`: not as a bus writes it (a field missing or invalid, an event that is not one, or one over
 *   `MAX_EVENT_BYTES`): skipped.
 * - `not_sent_by_this_node`: in the reader's own name, but not an event it sent (another seq, or another event
 *   under the seq): skipped. Taken as read back, it would make the node's own events look like copies.
 * - `out_of_sequence`: another node's seq at or below the last one read from it, with another event. A bus writes
 *   a node's events in seq order, a copy sent again under the same seq, so one of the two entries was not written
 *   by that node's bus, and the reader cannot tell which: it applies this one too, so no event is lost.
 */
export type StreamEntryProblem =
  | { type: 'malformed'; detail: 'bad_header' | 'not_a_change_event' | 'too_large' }
  | { type: 'not_sent_by_this_node'; seq: number }
  | { type: 'out_of_sequence'; origin: string; seq: number; after: number };

const MALFORMED: Record<Extract<StreamEntryProblem, { type: 'malformed' }>['detail'], string> = {
  bad_header: 'its ordinal (n), origin (o) or seq (s) is missing or invalid',
  not_a_change_event: 'its event (e) is not a change event',
  too_large: `its event is larger than the ${MAX_EVENT_BYTES} bytes an event may take`,
};

function describe(entryId: string, problem: StreamEntryProblem): string {
  switch (problem.type) {
    case 'malformed':
      return `skipped stream entry ${entryId}: ${MALFORMED[problem.detail]}`;
    case 'not_sent_by_this_node':
      return `skipped stream entry ${entryId}: it names this node as its origin with seq ${problem.seq}, an event this node did not send`;
    case 'out_of_sequence':
      return `applied stream entry ${entryId} out of sequence: seq ${problem.seq} of node ${problem.origin} came after seq ${problem.after}; one of the two was not written by that node's bus`;
  }
}

/** A stream entry the bus skipped or applied with doubt, passed to the bus's `log` with the line it writes. */
export class StreamEntryError extends McpActorsError {
  override readonly name = 'StreamEntryError';
  readonly code = 'redis_stream_entry';
  constructor(
    /** The entry's id in the stream. */
    readonly entryId: string,
    /** What is wrong with it. */
    readonly problem: StreamEntryProblem,
  ) {
    super(describe(entryId, problem));
  }
}

/** Thrown by the Redis bus's `publish` for an event over `MAX_EVENT_BYTES` as JSON, which every node would skip. */
export class EventTooLargeError extends McpActorsError {
  override readonly name = 'EventTooLargeError';
  readonly code = 'redis_event_too_large';
  constructor(
    /** The event's size as JSON, in bytes. */
    readonly bytes: number,
  ) {
    super(`a change event of ${bytes} bytes as JSON is over the ${MAX_EVENT_BYTES} bytes the Redis bus carries`);
  }
}
