/** What bench/server/stdio-tap.ts reports, shared with the burst benchmark that reads it (the tap itself patches the process it is loaded in). */

/** The id the burst benchmark gives its follow-up request. */
export const FOLLOW_UP_ID = 'follow-up';
/** What the tap's stderr line starts with. */
export const TAP_PREFIX = 'stdio-tap ';

/** What the tap reports: progress notifications written ahead of the answer, bytes in stdout's buffer when the request was read. */
export interface TapReport {
  ahead: number;
  buffered: number;
}
