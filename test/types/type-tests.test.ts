/**
 * The compile-time checks, on one TypeScript program: the type tests (test/types/*.types.ts: every expectTypeOf
 * holds, every @ts-expect-error still errs) and the README's TypeScript examples (test/readme/examples.ts: every
 * one type-checks against the real API). One program and one file, because most of the work is type-checking the
 * parts of src/ that both reach, and a program is not shared across vitest workers. Each check asks for the
 * diagnostics of its own files only: src/ itself is type-checked by the dist build of the global setup and by
 * `npx tsc --noEmit`, and a changed type a test uses shows in the test's file (the third case below).
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { exampleTypeErrors, examplesCompilerOptions, givenNames, type ReadmeExamples, readmeExamples, typescriptBlocks } from '../readme/examples.ts';
import { diagnosticLine, fileDiagnostics, projectProgram, REPO_ROOT } from '../setup/ts-program.ts';

const HERE = join(REPO_ROOT, 'test', 'types');

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

/**
 * A source as src/ might have one, with a type changed (line 2) and a type that names what does not exist (line 4),
 * and a type test of both (lines 3 and 4).
 */
const CHANGED_SOURCE = {
  name: join(HERE, 'changed-source.ts'),
  text: ['/** An era, misspelt. */', "export type Era = 'legacy' | 'moderm';", '/** A stage, naming a type that is not there. */', "export type Stage = 'ready' | Closed;"].join('\n'),
};
const USES_CHANGED = {
  name: join(HERE, 'uses-changed.types.ts'),
  text: [
    "import { expectTypeOf } from 'vitest';",
    "import type { Era, Stage } from './changed-source.ts';",
    "expectTypeOf<Era>().toEqualTypeOf<'legacy' | 'modern'>();",
    "expectTypeOf<Stage>().toEqualTypeOf<'ready' | 'closed'>();",
  ].join('\n'),
};

/** A README with one example that calls the API wrongly (line 6: no version). */
const WRONG_README = ['# x', '', '```ts', "import { createServer } from 'mcp-actors/server';", '', "createServer({ name: 'x' });", '```', ''].join('\n');

// Type-checking what the files use of src/ takes seconds, more on a busy machine; the first check pays for it.
const COMPILE_MS = 120_000;

const typeTestFiles = readdirSync(HERE).filter((name) => name.endsWith('.types.ts')).map((name) => join(HERE, name));
let program: ts.Program;
let readme = '';
let examples: ReadmeExamples;
let wrongExamples: ReadmeExamples;

beforeAll(async () => {
  readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
  examples = readmeExamples(readme, REPO_ROOT, 'example');
  wrongExamples = readmeExamples(WRONG_README, REPO_ROOT, 'wrong-example');
  const virtualFiles = new Map<string, string>([
    [WRONG.name, WRONG.text],
    [CHANGED_SOURCE.name, CHANGED_SOURCE.text],
    [USES_CHANGED.name, USES_CHANGED.text],
    givenNames(REPO_ROOT),
    ...[...examples.files, ...wrongExamples.files].map(([name, file]): [string, string] => [name, file.text]),
  ]);
  // Disk files come parsed from the cache the API reference shares (test/setup/ts-program.ts).
  program = projectProgram({ rootNames: typeTestFiles, options: examplesCompilerOptions(REPO_ROOT), virtualFiles });
}, COMPILE_MS);

/** The diagnostics of one file of the program, as `file:line: message`. */
const diagnosticsOf = (file: string): string[] => fileDiagnostics(program, file).map(diagnosticLine);

describe('type tests (test/types/*.types.ts)', () => {
  it('compile without a diagnostic, so every expectTypeOf holds and every @ts-expect-error still errs', () => {
    expect(typeTestFiles.length).toBeGreaterThan(0);
    const found = typeTestFiles.flatMap(diagnosticsOf);
    // What is not any one file's: the options, and globals such as a missing lib.
    found.push(...[...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map(diagnosticLine));
    expect(found).toEqual([]);
  }, COMPILE_MS);

  it('would catch a wrong expectation and a misspelt argument', () => {
    const found = diagnosticsOf(WRONG.name);
    expect(found.some((line) => line.includes('wrong.types.ts:4:'))).toBe(true);
    expect(found.some((line) => line.includes('wrong.types.ts:5:') && line.includes("'qq'"))).toBe(true);
  }, COMPILE_MS);

  it('would catch a changed type of a source they use, in their own file; an error inside a source is the build\'s to report', () => {
    expect(diagnosticsOf(USES_CHANGED.name)).toEqual([expect.stringMatching(/uses-changed\.types\.ts:3: /)]);
    // A type that names what does not exist is an error type, which TypeScript lets pass every expectation (line 4)
    // so that one error does not cascade: it is the source's own diagnostic, and the dist build of the global setup
    // fails the run on any diagnostic of src/ and machines/, the sources the type tests import.
    expect(diagnosticsOf(CHANGED_SOURCE.name)).toEqual([expect.stringMatching(/changed-source\.ts:4: Cannot find name 'Closed'/)]);
  }, COMPILE_MS);
});

describe("the README's TypeScript examples", () => {
  it('type-check, every one', () => {
    expect(typescriptBlocks(readme).length).toBeGreaterThan(8);
    // exampleTypeErrors leaves out unused-declaration findings; an @ts-expect-error is where that could differ.
    expect(readme).not.toMatch(/@ts-(expect-error|ignore)/);
    expect(exampleTypeErrors(program, examples)).toEqual([]);
  }, COMPILE_MS);

  it('report an example that calls the API wrongly, with its README line', () => {
    const errors = exampleTypeErrors(program, wrongExamples);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^README\.md:6: .*version/);
  }, COMPILE_MS);
});
