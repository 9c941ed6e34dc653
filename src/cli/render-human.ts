/**
 * The human timeline: one line per event (the connection summary takes three),
 * prefixed with the time. ANSI colours only when the output is a terminal,
 * so piped output stays plain text. Whatever the server chose is written
 * through `printable`: it cannot act on the terminal.
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
const MAX_TEXT = 60;

const clip = (text: string): string => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);
const clock = (date: Date): string => date.toISOString().slice(11, 23);
const serverLabel = (server: ServerIdentity): string => printable([server.name ?? 'unnamed server', server.version].filter(Boolean).join(' '));
const yesNo = (paint: Paint, on: boolean): string => (on ? paint('green', 'yes') : paint('dim', 'no'));

/** The timeline for a person; `serverName` prefixes every line of one server of a --config watch. */
export function humanRenderer(write: (text: string) => void, options: { colour: boolean; now?: () => Date; serverName?: string }): Renderer {
  const paint: Paint = options.colour ? (colour, text) => `\x1b[${CODES[colour][0]}m${text}\x1b[${CODES[colour][1]}m` : (_, text) => text;
  const now = options.now ?? (() => new Date());
  const prefix = options.serverName !== undefined ? `${paint('bold', `[${options.serverName}]`)} ` : '';
  const indent = INDENT + ' '.repeat(prefix === '' ? 0 : options.serverName!.length + 3);
  return (event) => {
    const lines = describe(event, paint);
    write(`${paint('dim', clock(now()))}  ${prefix}${lines.join(`\n${indent}`)}\n`);
  };
}

function describe(event: TimelineEvent, paint: Paint): string[] {
  switch (event.type) {
    case 'spawned':
      return [`${paint('dim', '▸ started')} ${printable(event.command)} ${paint('dim', `(pid ${event.pid})`)}`];
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
            ...(filter.resourceSubscriptions ?? []).map(printable),
          ].filter((item): item is string => item !== undefined)
        : [];
      return [
        `${paint('green', '● connected')} era ${paint('bold', event.era)} (${printable(event.protocolVersion)}) to ${paint('bold', server)}`,
        `changes advertised: tools ${yesNo(paint, event.changes.toolsListChanged)}, prompts ${yesNo(paint, event.changes.promptsListChanged)}, ` +
          `resources ${yesNo(paint, event.changes.resourcesListChanged)}, subscribe ${yesNo(paint, event.changes.resourceSubscribe)}`,
        `watching: ${watching.length > 0 ? watching.join(', ') : paint('yellow', 'nothing the server advertises')}`,
      ];
    }
    case 'list':
      return [`${paint('blue', `≡ ${event.list}`)} ${event.items.length === 0 ? paint('dim', '(empty)') : printable(event.items.join(', '))}`];
    case 'notification':
      return [`${paint('cyan', '↘ notification')} ${printable(event.method)}${typeof event.params.uri === 'string' ? ` ${printable(event.params.uri)}` : ''}`];
    case 'list_diff': {
      const parts = [
        ...event.added.map((name) => paint('green', `+${printable(name)}`)),
        ...event.removed.map((name) => paint('red', `-${printable(name)}`)),
        ...event.changed.map((name) => paint('yellow', `~${printable(name)}`)),
      ];
      return [`${paint('blue', `Δ ${event.list}`)} ${parts.length > 0 ? parts.join(' ') : paint('dim', 'no change')} ${paint('dim', `(${event.count} in all)`)}`];
    }
    case 'resource_updated':
      return [`${paint('cyan', '⟳ resource')} ${printable(event.uri)}${event.text !== undefined ? ` = ${printable(JSON.stringify(clip(event.text)))}` : ''}`];
    case 'refetch_failed':
      return [`${paint('red', '✗ refetch failed')} ${printable(event.key)}: ${printable(event.error)}`];
    case 'lost':
      return [`${paint('red', '✗ connection lost')} ${printable(event.cause)}`];
    case 'reconnecting':
      return [
        `${paint('yellow', '… reconnecting')} attempt ${event.attempt}${event.maxAttempts !== undefined ? ` of ${event.maxAttempts}` : ''} in ${event.delayMs} ms` +
          `${event.quickReadies > 0 ? ` after ${event.quickReadies} short-lived connection${event.quickReadies === 1 ? '' : 's'}` : ''} ${paint('dim', `(${printable(event.cause)})`)}`,
      ];
    case 'reconnected':
      return [
        `${paint('green', '● reconnected')} era ${paint('bold', event.era)} (${printable(event.protocolVersion)}) to ${paint('bold', serverLabel(event.server))} ${paint('dim', `(connection #${event.generation})`)}`,
      ];
    case 'era_changed':
      return [`${paint('yellow', '⇄ era changed')} ${event.from} → ${event.to}`];
    case 'cache': {
      const colour: Colour = event.state === 'degraded' ? 'red' : event.state === 'recovering' ? 'yellow' : event.resumed ? 'green' : 'dim';
      const name = event.resumed ? `${event.state} (resumed)` : event.state;
      return [`${paint(colour, `◆ ${name}`)} ${paint('dim', `cache ${event.previous} → ${event.state}`)}${event.detail ? ` ${printable(event.detail)}` : ''}`];
    }
    case 'idle':
      return [`${paint('dim', `◌ idle: ${event.hint}`)}`];
    case 'error':
      return [`${paint('red', '✗ error')} ${printable(event.error.message)}`];
    case 'closed':
      return [`${paint('bold', '■ closed')} ${event.reason}${event.detail ? ` ${paint('dim', `(${printable(event.detail)})`)}` : ''}`];
  }
}
