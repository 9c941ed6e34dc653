import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HERE = join(ROOT, 'test', 'types');

/** Every diagnostic of the given files compiled with the project's tsconfig, as `file:line: message`. */
function diagnostics(files: string[], extra?: { name: string; text: string }): string[] {
  const config = ts.parseJsonConfigFileContent(ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile).config, ts.sys, ROOT);
  const host = ts.createCompilerHost({ ...config.options, noEmit: true });
  if (extra) {
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (name, language, ...rest) => (name === extra.name ? ts.createSourceFile(name, extra.text, language) : getSourceFile(name, language, ...rest));
    const fileExists = host.fileExists.bind(host);
    host.fileExists = (name) => name === extra.name || fileExists(name);
  }
  const program = ts.createProgram([...files, ...(extra ? [extra.name] : [])], { ...config.options, noEmit: true }, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    return `${d.file?.fileName ?? '?'}:${line}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}

/** A file that must not compile: a wrong expectation (line 4) and a misspelt argument (line 5). */
const WRONG = {
  name: join(HERE, 'wrong.types.ts'),
  text: [
    "import { expectTypeOf } from 'vitest';",
    "import { createServer } from '../../src/server/index.ts';",
    "createServer({ name: 'x', version: '1' }).defineTool('t', { description: 't', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false } }, (args) => {",
    '  expectTypeOf(args.q).toEqualTypeOf<number>();',
    '  void args.qq;',
    '  return { content: [] };',
    '});',
  ].join('\n'),
};

// One program for both cases: type-checking the server's sources takes seconds, more on a busy machine.
const COMPILE_MS = 120_000;

describe('type tests (test/types/*.types.ts)', () => {
  const files = readdirSync(HERE).filter((name) => name.endsWith('.types.ts')).map((name) => join(HERE, name));
  let found: string[] = [];

  it('compile without a diagnostic, so every expectTypeOf holds and every @ts-expect-error still errs', () => {
    expect(files.length).toBeGreaterThan(0);
    found = diagnostics(files, WRONG);
    expect(found.filter((line) => !line.includes('wrong.types.ts:'))).toEqual([]);
  }, COMPILE_MS);

  it('would catch a wrong expectation and a misspelt argument', () => {
    expect(found.some((line) => line.includes('wrong.types.ts:4:'))).toBe(true);
    expect(found.some((line) => line.includes('wrong.types.ts:5:') && line.includes("'qq'"))).toBe(true);
  });
});
