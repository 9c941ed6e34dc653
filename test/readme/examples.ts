/**
 * Type-checks the README's TypeScript examples against the real API, as a
 * reader who pastes one would: each ```ts block is its own module importing
 * `mcp-actors`, `mcp-actors/server`, `mcp-actors/redis` and `mcp-actors/testing` (mapped to src/), and the few names
 * the README takes as given across examples (`client`, `server`, `signal`,
 * `transport`) are ambient, so an example may use them or declare its own.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { projectCompilerOptions, projectProgram } from '../setup/ts-program.ts';

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

/** Every type error of the examples, as `README.md:LINE: message`; empty when all check. */
export function exampleTypeErrors(markdown: string, repoRoot: string): string[] {
  const options: ts.CompilerOptions = {
    ...projectCompilerOptions(repoRoot),
    noUnusedLocals: false,
    baseUrl: repoRoot,
    paths: { 'mcp-actors': ['src/index.ts'], 'mcp-actors/server': ['src/server/index.ts'], 'mcp-actors/redis': ['src/redis/index.ts'], 'mcp-actors/testing': ['src/testing/index.ts'] },
  };
  // Virtual files beside the real tests, so that package.json ("type": "module") makes them ES modules.
  const dir = join(repoRoot, 'test', 'readme');
  const files = new Map<string, { text: string; line: number }>();
  files.set(join(dir, 'given.d.ts'), { text: GIVEN, line: 0 });
  for (const [n, block] of typescriptBlocks(markdown).entries()) {
    files.set(join(dir, `example-${n}.ts`), { text: `${block.code}\nexport {};\n`, line: block.line });
  }
  // Disk files come parsed from the cache the API reference and type tests share (test/setup/ts-program.ts).
  const virtualFiles = new Map([...files].map(([name, file]) => [name, file.text]));
  const program = projectProgram({ rootNames: [], options, virtualFiles });
  const errors: string[] = [];
  for (const [name, file] of files) {
    const source = program.getSourceFile(name)!;
    for (const diagnostic of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const at = diagnostic.start === undefined ? 0 : source.getLineAndCharacterOfPosition(diagnostic.start).line;
      errors.push(`README.md:${file.line + at}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`);
    }
  }
  return errors;
}
