/** What bench/server/stdio-tap.ts reports, shared with the burst benchmark that reads it (the tap itself patches the process it is loaded in). */

/** The id the burst benchmark gives its follow-up request. */
export const FOLLOW_UP_ID = 'follow-up';
/** What the tap's stderr line starts with. */
export const TAP_PREFIX = 'stdio-tap ';

/** What the tap reports. */
export interface TapReport {
  /** Progress notifications handed to stdout after the request was read and before its answer. */
  ahead: number;
  /** Bytes in stdout's buffer (not yet taken by the kernel) when the request was read. */
  buffered: number;
  /** Progress notifications handed to stdout before the request was read. */
  writtenBeforeRead: number;
}
