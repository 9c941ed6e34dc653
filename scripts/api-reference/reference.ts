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
import { markedRegion, type ReadmeRegion, spliceRegion } from '../../src/diagrams/readme-section.ts';
import { projectCompilerOptions, projectProgram } from '../../test/setup/ts-program.ts';
import { type ApiEntry, collectEntry } from './collect.ts';
import { entryPoints } from './entry-points.ts';
import { readmeSections } from './readme-links.ts';
import { apiReferenceSection } from './render.ts';

/** The README lacks the API reference markers, or has them more than once or out of order. */
export class ApiReferenceMarkersError extends McpActorsError {
  override readonly name = 'ApiReferenceMarkersError';
  readonly code = 'api_reference_markers';
}

/** The README region the reference is written into: between these two marker comments. */
export const API_REFERENCE: ReadmeRegion = {
  start: '<!-- api-reference:start -->',
  end: '<!-- api-reference:end -->',
  refuse: (message) => new ApiReferenceMarkersError(message),
};

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

/** The API reference exactly as it stands between the markers. */
export function markedApiReference(readme: string): string {
  return markedRegion(readme, API_REFERENCE);
}

/** `readme` with the reference of `entries` between the markers, linked to the README's other sections. */
export function withApiReference(readme: string, entries: readonly ApiEntry[]): string {
  // Links go to the sections outside the region (its own text is replaced anyway).
  const outside = spliceRegion(readme, API_REFERENCE, '');
  return spliceRegion(readme, API_REFERENCE, apiReferenceSection(entries, readmeSections(outside)));
}
