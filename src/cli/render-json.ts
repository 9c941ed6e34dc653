/**
 * The NDJSON renderer (`--json`): one JSON object per event and line, with
 * the time it was printed and, when watching the servers of a config, the
 * server's name in that config (`serverName`). What the server chose is the
 * exact text, with the characters a terminal or a line splitter would act on
 * written as JSON escapes (printable.ts).
 */
import { printableJson } from './printable.ts';
import type { Renderer } from './timeline.ts';

/** Writes each event as one JSON line; `serverName` marks every line of one server of a --config watch. */
export const jsonRenderer = (write: (line: string) => void, now: () => Date = () => new Date(), serverName?: string): Renderer =>
  (event) => write(`${printableJson(JSON.stringify({ time: now().toISOString(), ...(serverName !== undefined ? { serverName } : {}), ...event }))}\n`);
