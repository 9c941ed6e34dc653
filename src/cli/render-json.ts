/** The NDJSON renderer (`--json`): one JSON object per event and line, with the time it was printed. */
import type { Renderer } from './timeline.ts';

export const jsonRenderer = (write: (line: string) => void, now: () => Date = () => new Date()): Renderer =>
  (event) => write(`${JSON.stringify({ time: now().toISOString(), ...event })}\n`);
