import { describe, expect, it } from 'vitest';
import { humanRenderer } from '../../src/cli/render-human.ts';
import { jsonRenderer } from '../../src/cli/render-json.ts';
import type { TimelineEvent } from '../../src/cli/timeline.ts';

const at = () => new Date('2026-11-30T12:34:56.789Z');

const render = (event: TimelineEvent, colour: boolean) => {
  let out = '';
  humanRenderer((text) => (out += text), { colour, now: at })(event);
  return out;
};

const EVENTS: TimelineEvent[] = [
  { type: 'list_diff', list: 'tools', added: ['new'], removed: ['old'], changed: ['same'], count: 2 },
  { type: 'reconnecting', attempt: 2, quickReadies: 0, delayMs: 480, cause: 'server process exited (code 1)' },
  { type: 'reconnecting', attempt: 1, maxAttempts: 5, quickReadies: 3, delayMs: 1_600, cause: 'server process exited (code 1)' },
  { type: 'closed', reason: 'reconnect_exhausted', detail: 'spawn ENOENT' },
];

describe('humanRenderer', () => {
  it('writes one timestamped line per event', () => {
    expect(EVENTS.map((event) => render(event, false)).join('')).toBe(
      '12:34:56.789  Δ tools +new -old ~same (2 in all)\n' +
        '12:34:56.789  … reconnecting attempt 2 in 480 ms (server process exited (code 1))\n' +
        '12:34:56.789  … reconnecting attempt 1 of 5 in 1600 ms after 3 short-lived connections (server process exited (code 1))\n' +
        '12:34:56.789  ■ closed reconnect_exhausted (spawn ENOENT)\n',
    );
  });

  it('colours only when asked, and the text is the same underneath', () => {
    for (const event of EVENTS) {
      const coloured = render(event, true);
      expect(coloured).toMatch(/\x1b\[\d+m/);
      expect(coloured.replace(/\x1b\[\d+m/g, '')).toBe(render(event, false));
    }
  });

  it('the connected summary indents its detail lines under the first', () => {
    const text = render({
      type: 'connected',
      era: 'legacy',
      protocolVersion: '2025-11-25',
      server: { name: 'srv', version: '2.0' },
      changes: { toolsListChanged: true, promptsListChanged: false, resourcesListChanged: false, resourceSubscribe: true },
      interest: { tools: true, prompts: true, resources: false, uris: ['a://1'] },
      filter: { toolsListChanged: true, resourceSubscriptions: ['a://1'] },
    }, false);
    expect(text).toBe(
      '12:34:56.789  ● connected era legacy (2025-11-25) to srv 2.0\n' +
        '              changes advertised: tools yes, prompts no, resources no, subscribe yes\n' +
        '              watching: tools, a://1\n',
    );
  });

  // What a hostile server sends, by the field it lands in: a window title (OSC 0), a clipboard write (OSC 52), a
  // screen clear (CSI 2J, also as the one-byte C1 CSI), a forged line, a bell, and a right-to-left override.
  const HOSTILE = '\x1b]0;pwned\x07\x1b]52;c;cm0gLXJm\x07\x1b[2J\u009b2J\nforged line\r\u202eevil';
  const hostileEvents: TimelineEvent[] = [
    { type: 'connected', era: 'modern', protocolVersion: HOSTILE, server: { name: HOSTILE, version: HOSTILE }, changes: { toolsListChanged: true, promptsListChanged: false, resourcesListChanged: false, resourceSubscribe: true }, interest: { tools: true, prompts: false, resources: false, uris: [HOSTILE] }, filter: { toolsListChanged: true, resourceSubscriptions: [HOSTILE] } },
    { type: 'list', list: 'tools', items: [HOSTILE, 'plain'] },
    { type: 'notification', method: HOSTILE, params: { uri: HOSTILE } },
    { type: 'list_diff', list: 'tools', added: [HOSTILE], removed: [HOSTILE], changed: [HOSTILE], count: 1 },
    { type: 'resource_updated', uri: HOSTILE, text: HOSTILE },
    { type: 'refetch_failed', key: HOSTILE, error: HOSTILE },
    { type: 'lost', cause: HOSTILE },
    { type: 'reconnecting', attempt: 1, quickReadies: 1, delayMs: 10, cause: HOSTILE },
    { type: 'reconnected', era: 'modern', protocolVersion: HOSTILE, server: { name: HOSTILE, version: HOSTILE }, generation: 2 },
    { type: 'cache', state: 'degraded', previous: 'listening', resumed: false, detail: HOSTILE },
    { type: 'error', error: { name: 'Error', message: HOSTILE } },
    { type: 'closed', reason: 'transport_closed', detail: HOSTILE },
  ];

  it.each(hostileEvents.map((event) => [event.type, event] as const))('%s: what the server chose is shown escaped, never acted on by the terminal', (_type, event) => {
    for (const colour of [false, true]) {
      const text = render(event, colour);
      // Our own colours are the only escape sequences, each line is one of ours, and nothing is reordered.
      const ours = text.replace(/\x1b\[\d+m/g, '');
      expect(ours).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/u);
      expect(ours.split('\n').filter(Boolean).every((line) => /^12:34:56\.789 {2}|^ {14}/.test(line))).toBe(true);
      expect(ours).toContain('\\u{1b}]52;c;cm0gLXJm\\u{7}');
    }
  });
});

describe('humanRenderer, hostile sizes and config names', () => {
  it('a megabyte name, URI or message is clipped to one readable line (the JSON keeps it whole)', () => {
    const huge = 'A'.repeat(1024 * 1024);
    const events: TimelineEvent[] = [
      { type: 'list', list: 'tools', items: [huge, 'plain'] },
      { type: 'list_diff', list: 'resources', added: [`file:///${huge}`], removed: [], changed: [], count: 1 },
      { type: 'reconnected', era: 'legacy', protocolVersion: huge, server: { name: huge, version: huge }, generation: 2 },
      { type: 'refetch_failed', key: 'tools', error: huge },
    ];
    for (const event of events) {
      const text = render(event, false);
      expect(text.length).toBeLessThan(1_000);
      expect(text).toMatch(/A…/);
    }
    expect(render(events[0]!, false)).toMatch(/A…, plain\n$/);
    let json = '';
    jsonRenderer((line) => (json += line), at)(events[0]!);
    expect((JSON.parse(json) as { items: string[] }).items[0]).toBe(huge);
  });

  it('clipping never leaves half of a character', () => {
    const text = render({ type: 'lost', cause: '\u{1F600}'.repeat(500) }, false);
    expect(text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(text).toContain('\u{1F600}…');
  });

  it('the name a config file gives a server is shown escaped in the prefix of its lines', () => {
    let out = '';
    const name = '\x1b]0;pwned\x07\x1b[2J';
    humanRenderer((text) => (out += text), { colour: true, now: at, serverName: name })({ type: 'lost', cause: 'gone' });
    expect(out.replace(/\x1b\[\d+m/g, '')).toBe('12:34:56.789  [\\u{1b}]0;pwned\\u{7}\\u{1b}[2J] ✗ connection lost gone\n');
  });
});

describe('jsonRenderer', () => {
  it('writes one JSON object per line with the time first', () => {
    let out = '';
    jsonRenderer((line) => (out += line), at)(EVENTS[1]!);
    expect(out).toBe('{"time":"2026-11-30T12:34:56.789Z","type":"reconnecting","attempt":2,"quickReadies":0,"delayMs":480,"cause":"server process exited (code 1)"}\n');
  });
});
