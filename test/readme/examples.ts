/**
 * Type-checks the README's TypeScript examples against the real API, as a
 * reader who pastes one would: each ```ts block is its own module importing
 * `mcp-actors`, `mcp-actors/server`, `mcp-actors/redis` and `mcp-actors/testing` (mapped to src/), and the few names
 * the README takes as given across examples (`client`, `server`, `signal`,
 * `transport`) are ambient, so an example may use them or declare its own.
 * The examples are virtual files of a program that may hold other files too
 * (test/types/type-tests.test.ts checks them in the type tests' program).
 */
import { join } from 'node:path';
import ts from 'typescript';
import { type DiagnosticsOf, projectCompilerOptions } from '../setup/ts-program.ts';

/** The names an example may use without declaring them, as earlier examples made them. */
const GIVEN = `
declare const client: import('mcp-actors').McpClient;
declare const server: import('mcp-actors/server').McpServer;
declare const signal: AbortSignal;
declare const transport: import('mcp-actors').TransportFactory;
`;

/** The body of every ```ts fence, with the line it starts on. */
export function typescriptBlocks(markdown: string): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```ts') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]!.trim() !== '```') end++;
    blocks.push({ line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

/** One README's examples as virtual files (path to text), each with the README line its block starts on. */
export interface ReadmeExamples {
  files: ReadonlyMap<string, { text: string; line: number }>;
}

// Virtual files beside the real tests, so that package.json ("type": "module") makes them ES modules.
const examplesDir = (repoRoot: string) => join(repoRoot, 'test', 'readme');

/** The file that declares what every example may take as given; a program of examples needs it once. */
export function givenNames(repoRoot: string): [path: string, text: string] {
  return [join(examplesDir(repoRoot), 'given.d.ts'), GIVEN];
}

/** The ```ts blocks of `markdown` as modules named `<prefix>-<n>.ts`: one prefix per README in a program. */
export function readmeExamples(markdown: string, repoRoot: string, prefix: string): ReadmeExamples {
  const files = new Map<string, { text: string; line: number }>();
  for (const [n, block] of typescriptBlocks(markdown).entries()) {
    files.set(join(examplesDir(repoRoot), `${prefix}-${n}.ts`), { text: `${block.code}\nexport {};\n`, line: block.line });
  }
  return { files };
}

/**
 * The repository's compiler options with the package's specifiers mapped to src/ (relative to the repository
 * root, where tsconfig.json is). Files that import by relative path, as the type tests do, resolve as before.
 */
export function examplesCompilerOptions(repoRoot: string): ts.CompilerOptions {
  return {
    ...projectCompilerOptions(repoRoot),
    paths: { 'mcp-actors': ['./src/index.ts'], 'mcp-actors/server': ['./src/server/index.ts'], 'mcp-actors/redis': ['./src/redis/index.ts'], 'mcp-actors/testing': ['./src/testing/index.ts'] },
  };
}

/**
 * Every type error of the examples (their diagnostics as `diagnosticsOf` gives them), as `README.md:LINE: message`;
 * empty when all check. An example may declare what it does not use: the project's noUnusedLocals findings (the
 * diagnostics TypeScript marks as reporting something unnecessary) are not errors of an example. No README example
 * carries a `@ts-expect-error` or `@ts-ignore`, the one place where reporting them or not could differ.
 */
export function exampleTypeErrors(diagnosticsOf: DiagnosticsOf, examples: ReadmeExamples): string[] {
  const errors: string[] = [];
  for (const [name, file] of examples.files) {
    for (const diagnostic of diagnosticsOf(name)) {
      if (diagnostic.reportsUnnecessary) continue;
      const at = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line : 0;
      errors.push(`README.md:${file.line + at}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`);
    }
  }
  return errors;
}
