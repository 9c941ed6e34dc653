/**
 * The API reference of the package at a repository root: its entry points
 * collected from one program of the sources, the README section rendered
 * from them, and where that section goes in README.md. `npm run api` writes
 * it; test/readme/api-reference.test.ts checks it is current and that every
 * export is documented.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type ts from 'typescript';
import { McpActorsError } from '../../machines/errors.ts';
import { projectCompilerOptions, projectProgram } from '../../test/setup/ts-program.ts';
import { type ApiEntry, collectEntry } from './collect.ts';
import { entryPoints } from './entry-points.ts';
import { readmeSections } from './readme-links.ts';
import { apiReferenceSection } from './render.ts';

export const API_REFERENCE_START = '<!-- api-reference:start -->';
export const API_REFERENCE_END = '<!-- api-reference:end -->';

/** The README lacks the API reference markers, or has them more than once or out of order. */
export class ApiReferenceMarkersError extends McpActorsError {
  override readonly name = 'ApiReferenceMarkersError';
  readonly code = 'api_reference_markers';
  constructor(problem: string) {
    super(`README.md: ${problem}; it needs one \`${API_REFERENCE_START}\` line followed by one \`${API_REFERENCE_END}\` line`);
  }
}

/**
 * One program of every source under src/ and machines/, without lib or
 * node_modules types: the reference reads declarations and symbols, never
 * types that come from outside, and leaving those out makes it several
 * times faster to build.
 */
export function sourcesProgram(repoRoot: string): ts.Program {
  const rootNames = ['src', 'machines'].flatMap((folder) =>
    readdirSync(join(repoRoot, folder), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => join(repoRoot, folder, name)),
  );
  return projectProgram({ rootNames, options: { ...projectCompilerOptions(repoRoot), noResolve: true, noLib: true, types: [] } });
}

/** Every entry point of the package with its exports. */
export function collectApi(repoRoot: string, program: ts.Program = sourcesProgram(repoRoot)): ApiEntry[] {
  return entryPoints(repoRoot).map((entry) => collectEntry(program, entry, repoRoot));
}

/** `readme` cut at the markers: the text before the start marker (inclusive), between, and from the end marker on. */
function split(readme: string): { before: string; between: string; after: string } {
  const starts = readme.split(API_REFERENCE_START).length - 1;
  const ends = readme.split(API_REFERENCE_END).length - 1;
  if (starts !== 1 || ends !== 1) throw new ApiReferenceMarkersError(`found ${starts} start and ${ends} end marker(s)`);
  const open = readme.indexOf(API_REFERENCE_START) + API_REFERENCE_START.length;
  const close = readme.indexOf(API_REFERENCE_END);
  if (close < open) throw new ApiReferenceMarkersError('the end marker comes before the start marker');
  return { before: readme.slice(0, open), between: readme.slice(open, close), after: readme.slice(close) };
}

/** The API reference exactly as it stands between the markers. */
export function markedApiReference(readme: string): string {
  return split(readme).between;
}

/** `readme` with the reference of `entries` between the markers, linked to the README's other sections. */
export function withApiReference(readme: string, entries: readonly ApiEntry[]): string {
  const { before, after } = split(readme);
  const section = apiReferenceSection(entries, readmeSections(`${before}\n${after}`));
  return `${before}\n\n${section}\n${after}`;
}
