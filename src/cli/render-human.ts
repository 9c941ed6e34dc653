/**
 * The human timeline: one line per event (the connection summary takes three),
 * prefixed with the time. ANSI colours only when the output is a terminal,
 * so piped output stays plain text. Whatever the server chose is written
 * through `printable`, so it cannot act on the terminal, and clipped, so a
 * megabyte name is one readable line (`--json` keeps the exact text).
 */
import { printable } from './printable.ts';
import type { Renderer, ServerIdentity, TimelineEvent } from './timeline.ts';

type Colour = 'dim' | 'bold' | 'red' | 'green' | 'yellow' | 'blue' | 'magenta' | 'cyan';

const CODES: Record<Colour, [number, number]> = {
  dim: [2, 22],
  bold: [1, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  cyan: [36, 39],
};

type Paint = (colour: Colour, text: string) => string;

const INDENT = ' '.repeat(14);
/** A resource's text is a glimpse. */
const MAX_TEXT = 60;
/** Any other one thing a server chose (a name, a URI, a message): enough to tell it apart, not a megabyte to the terminal. */
const MAX_SHOWN = 240;

/** `text` cut to `max` characters with an ellipsis, never between the two halves of a surrogate pair. */
const clip = (text: string, max = MAX_TEXT): string => {
  if (text.length <= max) return text;
  const cut = /[\ud800-\udbff]$/.test(text.slice(0, max - 1)) ? max - 2 : max - 1;
  return `${text.slice(0, cut)}…`;
};
/** What a server chose, as the timeline writes it: clipped, and escaped so that the terminal shows it (printable.ts). */
const shown = (text: string): string => printable(clip(text, MAX_SHOWN));
const clock = (date: Date): string => date.toISOString().slice(11, 23);
const serverLabel = (server: ServerIdentity): string =>
  [server.name ?? 'unnamed server', server.version].filter((part): part is string => Boolean(part)).map(shown).join(' ');
const yesNo = (paint: Paint, on: boolean): string => (on ? paint('green', 'yes') : paint('dim', 'no'));

/** The timeline for a person; `serverName` prefixes every line of one server of a --config watch. */
export function humanRenderer(write: (text: string) => void, options: { colour: boolean; now?: () => Date; serverName?: string }): Renderer {
  const paint: Paint = options.colour ? (colour, text) => `\x1b[${CODES[colour][0]}m${text}\x1b[${CODES[colour][1]}m` : (_, text) => text;
  const now = options.now ?? (() => new Date());
  // The name a config file gives a server is text someone else may have written too (a project's .mcp.json).
  const name = options.serverName !== undefined ? shown(options.serverName) : undefined;
  const prefix = name !== undefined ? `${paint('bold', `[${name}]`)} ` : '';
  const indent = INDENT + ' '.repeat(name === undefined ? 0 : name.length + 3);
  return (event) => {
    const lines = describe(event, paint);
    write(`${paint('dim', clock(now()))}  ${prefix}${lines.join(`\n${indent}`)}\n`);
  };
}

function describe(event: TimelineEvent, paint: Paint): string[] {
  switch (event.type) {
    case 'spawned':
      return [`${paint('dim', '▸ started')} ${shown(event.command)} ${paint('dim', `(pid ${event.pid})`)}`];
    case 'inspector':
      return [
        `${paint('magenta', '◎ inspector')} open ${paint('bold', event.url)} in a browser ${paint('dim', '(works offline)')}`,
        `${paint('magenta', '◎ Stately inspector')} open ${paint('bold', event.stately)} ${paint('dim', `(frames stately.ai, needs internet; relay ${event.statelySocket})`)}`,
        ...(event.loopback
          ? []
          : [paint('yellow', `⚠ the inspector is not on a loopback address: anyone who can reach ${event.url} sees every actor's states and events`)]),
      ];
    case 'connected': {
      const server = serverLabel(event.server);
      const filter = event.filter;
      const watching = filter
        ? [
            filter.toolsListChanged ? 'tools' : undefined,
            filter.promptsListChanged ? 'prompts' : undefined,
            filter.resourcesListChanged ? 'resources' : undefined,
            ...(filter.resourceSubscriptions ?? []).map(shown),
          ].filter((item): item is string => item !== undefined)
        : [];
      return [
        `${paint('green', '● connected')} era ${paint('bold', event.era)} (${shown(event.protocolVersion)}) to ${paint('bold', server)}`,
        `changes advertised: tools ${yesNo(paint, event.changes.toolsListChanged)}, prompts ${yesNo(paint, event.changes.promptsListChanged)}, ` +
          `resources ${yesNo(paint, event.changes.resourcesListChanged)}, subscribe ${yesNo(paint, event.changes.resourceSubscribe)}`,
        `watching: ${watching.length > 0 ? watching.join(', ') : paint('yellow', 'nothing the server advertises')}`,
      ];
    }
    case 'list':
      return [`${paint('blue', `≡ ${event.list}`)} ${event.items.length === 0 ? paint('dim', '(empty)') : event.items.map(shown).join(', ')}`];
    case 'notification':
      return [`${paint('cyan', '↘ notification')} ${shown(event.method)}${typeof event.params.uri === 'string' ? ` ${shown(event.params.uri)}` : ''}`];
    case 'list_diff': {
      const parts = [
        ...event.added.map((name) => paint('green', `+${shown(name)}`)),
        ...event.removed.map((name) => paint('red', `-${shown(name)}`)),
        ...event.changed.map((name) => paint('yellow', `~${shown(name)}`)),
      ];
      return [`${paint('blue', `Δ ${event.list}`)} ${parts.length > 0 ? parts.join(' ') : paint('dim', 'no change')} ${paint('dim', `(${event.count} in all)`)}`];
    }
    case 'resource_updated':
      return [`${paint('cyan', '⟳ resource')} ${shown(event.uri)}${event.text !== undefined ? ` = ${printable(JSON.stringify(clip(event.text)))}` : ''}`];
    case 'refetch_failed':
      return [`${paint('red', '✗ refetch failed')} ${shown(event.key)}: ${shown(event.error)}`];
    case 'lost':
      return [`${paint('red', '✗ connection lost')} ${shown(event.cause)}`];
    case 'reconnecting':
      return [
        `${paint('yellow', '… reconnecting')} attempt ${event.attempt}${event.maxAttempts !== undefined ? ` of ${event.maxAttempts}` : ''} in ${event.delayMs} ms` +
          `${event.quickReadies > 0 ? ` after ${event.quickReadies} short-lived connection${event.quickReadies === 1 ? '' : 's'}` : ''} ${paint('dim', `(${shown(event.cause)})`)}`,
      ];
    case 'reconnected':
      return [
        `${paint('green', '● reconnected')} era ${paint('bold', event.era)} (${shown(event.protocolVersion)}) to ${paint('bold', serverLabel(event.server))} ${paint('dim', `(connection #${event.generation})`)}`,
      ];
    case 'era_changed':
      return [`${paint('yellow', '⇄ era changed')} ${event.from} → ${event.to}`];
    case 'cache': {
      const colour: Colour = event.state === 'degraded' ? 'red' : event.state === 'recovering' ? 'yellow' : event.resumed ? 'green' : 'dim';
      const name = event.resumed ? `${event.state} (resumed)` : event.state;
      return [`${paint(colour, `◆ ${name}`)} ${paint('dim', `cache ${event.previous} → ${event.state}`)}${event.detail ? ` ${shown(event.detail)}` : ''}`];
    }
    case 'idle':
      return [`${paint('dim', `◌ idle: ${event.hint}`)}`];
    case 'error':
      return [`${paint('red', '✗ error')} ${shown(event.error.message)}`];
    case 'closed':
      return [`${paint('bold', '■ closed')} ${event.reason}${event.detail ? ` ${paint('dim', `(${shown(event.detail)})`)}` : ''}`];
  }
}
