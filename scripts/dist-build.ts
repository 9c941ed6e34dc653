/**
 * The package build: `src/` and `machines/` compiled into `dist/` as
 * tsconfig.build.json says (ES2022 JavaScript, declarations, declaration maps,
 * source maps), failing on any type error. Used by `npm run build` and by the
 * test suite's global setup.
 *
 * Why not plain `tsc -b`: the sources import each other with `.ts`
 * extensions; `rewriteRelativeImportExtensions` turns them into `.js` in the
 * JavaScript but leaves `.ts` in the declarations (microsoft/TypeScript#61037),
 * which some tools cannot follow. The one addition here is a declaration
 * transformer that rewrites those specifiers on the syntax tree, so no text is
 * patched afterwards. The build stays incremental (TypeScript's solution
 * builder): with nothing changed it only compares timestamps.
 */
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { rewriteDeclarationSpecifiers } from './declaration-specifiers.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONFIG = fileURLToPath(new URL('../tsconfig.build.json', import.meta.url));
/** Where the build writes; matches tsconfig.build.json's outDir. */
export const DIST = fileURLToPath(new URL('../dist', import.meta.url));

const formatHost: ts.FormatDiagnosticsHost = {
  getCanonicalFileName: (fileName) => fileName,
  getCurrentDirectory: () => ROOT,
  getNewLine: () => '\n',
};

/** Builds dist/ (from scratch with `clean`); diagnostics go to stderr. True when the build succeeded. */
export function buildDist(options: { clean?: boolean } = {}): boolean {
  if (options.clean) rmSync(DIST, { recursive: true, force: true });
  const report = (diagnostic: ts.Diagnostic) => process.stderr.write(ts.formatDiagnosticsWithColorAndContext([diagnostic], formatHost));
  const host = ts.createSolutionBuilderHost(ts.sys, undefined, report, () => {});
  const builder = ts.createSolutionBuilder(host, [CONFIG], {});
  const status = builder.build(undefined, undefined, undefined, () => ({ afterDeclarations: [rewriteDeclarationSpecifiers] }));
  return status === ts.ExitStatus.Success;
}
