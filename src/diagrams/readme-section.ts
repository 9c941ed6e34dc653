/**
 * The statecharts shown in the repository's README.md: the same Mermaid
 * blocks as `diagrams/` (catalog.ts draws both), written between two marker
 * comments. Only the text between the markers is generated; everything else
 * in the README is left byte for byte as it was.
 */
import { McpActorsError } from '../protocol/errors.ts';
import { mermaidBlock, type FoundMachine } from './catalog.ts';

export const STATECHARTS_START = '<!-- statecharts:start -->';
export const STATECHARTS_END = '<!-- statecharts:end -->';

/** The README lacks the markers, or has them more than once or in the wrong order. */
export class StatechartsMarkersError extends McpActorsError {
  override readonly name = 'StatechartsMarkersError';
  readonly code = 'statecharts_markers';
  constructor(problem: string) {
    super(`README.md: ${problem}; it needs one \`${STATECHARTS_START}\` line followed by one \`${STATECHARTS_END}\` line`);
  }
}

/** What goes between the markers: per machine, a heading and its Mermaid block. */
export function statechartsSection(found: FoundMachine[]): string {
  const parts = found.map((machine) => `### ${machine.name}\n\n${mermaidBlock(machine)}\n`);
  return parts.length > 0 ? parts.join('\n') : '(no machines yet)\n';
}

interface MarkedReadme {
  before: string;
  between: string;
  after: string;
}

function split(readme: string): MarkedReadme {
  const starts = readme.split(STATECHARTS_START).length - 1;
  const ends = readme.split(STATECHARTS_END).length - 1;
  if (starts !== 1 || ends !== 1) {
    throw new StatechartsMarkersError(`found ${starts} start and ${ends} end marker(s)`);
  }
  const open = readme.indexOf(STATECHARTS_START) + STATECHARTS_START.length;
  const close = readme.indexOf(STATECHARTS_END);
  if (close < open) throw new StatechartsMarkersError('the end marker comes before the start marker');
  return { before: readme.slice(0, open), between: readme.slice(open, close), after: readme.slice(close) };
}

/** The text between the markers, exactly as it stands. */
export function markedStatecharts(readme: string): string {
  return split(readme).between;
}

/** `readme` with `section` between the markers, a blank line on either side. */
export function spliceStatecharts(readme: string, section: string): string {
  const { before, after } = split(readme);
  return `${before}\n\n${section}\n${after}`;
}
