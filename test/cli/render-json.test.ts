/**
 * `--json` lines whatever a server sends: each line parses back to the exact
 * event, and carries no character a terminal acts on (a one-byte CSI, a
 * bidirectional override) or a line splitter breaks on (U+2028, U+0085).
 */
import { describe, expect, it } from 'vitest';
import { jsonRenderer } from '../../src/cli/render-json.ts';
import type { TimelineEvent } from '../../src/cli/timeline.ts';

const at = () => new Date('2026-11-30T12:34:56.789Z');

/** A one-byte CSI clearing the screen, DEL, NEL, the line and paragraph separators, a right-to-left override and isolate, a lone surrogate, an emoji. */
const HOSTILE = 'a\u009b2J\u007f\u0085\u2028b\u2029\u202eevil\u2066\ud800\u{1F600}"\\\n\x1b]0;t\x07';

/** Every character the terminal or a line splitter would act on, raw (JSON.stringify escapes the C0 ones itself). */
const ACTED_ON = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

const hostileEvents: TimelineEvent[] = [
  { type: 'connected', era: 'legacy', protocolVersion: HOSTILE, server: { name: HOSTILE, version: HOSTILE }, changes: { toolsListChanged: true, promptsListChanged: false, resourcesListChanged: false, resourceSubscribe: false }, interest: { tools: true, prompts: false, resources: false, uris: [] }, filter: { toolsListChanged: true } },
  { type: 'list', list: 'tools', items: [HOSTILE, `\\${HOSTILE}`] },
  { type: 'list_diff', list: 'tools', added: [HOSTILE], removed: [], changed: [], count: 1 },
  { type: 'resource_updated', uri: `file:///${HOSTILE}`, text: HOSTILE },
  { type: 'notification', method: HOSTILE, params: { [HOSTILE]: HOSTILE } },
  { type: 'error', error: { name: 'NegotiationError', message: HOSTILE } },
];

describe('jsonRenderer, hostile text', () => {
  it.each(hostileEvents.map((event) => [event.type, event] as const))('%s: one line, parsed back to the exact event, nothing raw a terminal acts on', (_type, event) => {
    let out = '';
    jsonRenderer((line) => (out += line), at, HOSTILE)(event);
    // Split as Python's str.splitlines does, the widest common line splitter: still one line.
    expect(out.split(/\r\n|[\n\r\u000b\u000c\u001c-\u001e\u0085\u2028\u2029]/u)).toEqual([out.slice(0, -1), '']);
    expect(out.slice(0, -1)).not.toMatch(ACTED_ON);
    expect(JSON.parse(out)).toEqual({ time: '2026-11-30T12:34:56.789Z', serverName: HOSTILE, ...event });
  });
});
