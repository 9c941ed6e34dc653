/**
 * The package's public entry points, read from package.json `exports` and
 * mapped back from the built files to their sources: `./dist/src/server/index.d.ts`
 * is `src/server/index.ts`. An export that is not built from a source (such
 * as `./package.json`) is no API and is skipped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One `exports` subpath: what a consumer imports, and the source file it is built from. */
export interface EntryPoint {
  /** The import specifier, e.g. `mcp-actors/server`. */
  specifier: string;
  /** The source file, relative to the repository root, e.g. `src/server/index.ts`. */
  source: string;
}

type ExportTarget = string | { types?: string; default?: string; import?: string } | null;

/** The source a built path comes from, or undefined for a path the build does not produce. */
export function sourceOfBuiltPath(built: string): string | undefined {
  const match = /^\.\/dist\/(.+?)(?:\.d\.ts|\.js)$/.exec(built);
  return match ? `${match[1]}.ts` : undefined;
}

/** Every entry point of the package at `repoRoot`, in the order package.json lists them. */
export function entryPoints(repoRoot: string): EntryPoint[] {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    name: string;
    exports?: Record<string, ExportTarget>;
  };
  const found: EntryPoint[] = [];
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    const built = typeof target === 'string' ? target : (target?.types ?? target?.import ?? target?.default);
    const source = built === undefined ? undefined : sourceOfBuiltPath(built);
    if (source === undefined) continue;
    found.push({ specifier: subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`, source });
  }
  return found;
}
