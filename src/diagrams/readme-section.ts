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
}

/** What goes between the markers: per machine, a heading and its Mermaid block. */
export function statechartsSection(found: FoundMachine[]): string {
  const parts = found.map((machine) => `### ${machine.name}\n\n${mermaidBlock(machine)}\n`);
  return parts.length > 0 ? parts.join('\n') : '(no machines yet)\n';
}

/**
 * A README region a generator owns: the text between one start and one end
 * marker comment, and the error for a README whose markers are missing,
 * repeated or out of order. The statecharts here and the API reference
 * (scripts/api-reference/) are two such regions.
 */
export interface ReadmeRegion {
  start: string;
  end: string;
  /** The error to throw, given its message (which says what is wrong and what the README needs). */
  refuse: (message: string) => McpActorsError;
}

const STATECHARTS: ReadmeRegion = {
  start: STATECHARTS_START,
  end: STATECHARTS_END,
  refuse: (message) => new StatechartsMarkersError(message),
};

interface MarkedReadme {
  before: string;
  between: string;
  after: string;
}

function split(readme: string, region: ReadmeRegion): MarkedReadme {
  const refuse = (problem: string) => region.refuse(`README.md: ${problem}; it needs one \`${region.start}\` line followed by one \`${region.end}\` line`);
  const starts = readme.split(region.start).length - 1;
  const ends = readme.split(region.end).length - 1;
  if (starts !== 1 || ends !== 1) throw refuse(`found ${starts} start and ${ends} end marker(s)`);
  const open = readme.indexOf(region.start) + region.start.length;
  const close = readme.indexOf(region.end);
  if (close < open) throw refuse('the end marker comes before the start marker');
  return { before: readme.slice(0, open), between: readme.slice(open, close), after: readme.slice(close) };
}

/** The text between the region's markers, exactly as it stands. */
export function markedRegion(readme: string, region: ReadmeRegion): string {
  return split(readme, region).between;
}

/** `readme` with `section` between the region's markers, a blank line on either side. */
export function spliceRegion(readme: string, region: ReadmeRegion, section: string): string {
  const { before, after } = split(readme, region);
  return `${before}\n\n${section}\n${after}`;
}

/** The text between the markers, exactly as it stands. */
export function markedStatecharts(readme: string): string {
  return markedRegion(readme, STATECHARTS);
}

/** `readme` with `section` between the markers, a blank line on either side. */
export function spliceStatecharts(readme: string, section: string): string {
  return spliceRegion(readme, STATECHARTS, section);
}
