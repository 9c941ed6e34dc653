/**
 * The compile-time checks, on one TypeScript program: the type tests (test/types/*.types.ts: every expectTypeOf
 * holds, every @ts-expect-error still errs) and the README's TypeScript examples (test/readme/examples.ts: every
 * one type-checks against the real API). One program and one file, because most of the work is type-checking the
 * parts of src/ that both reach, and a program is not shared across vitest workers. Each check asks for the
 * diagnostics of its own files only: src/ itself is type-checked by the dist build of the global setup and by
 * `npx tsc --noEmit`, and a changed type a test uses shows in the test's file (the third case below).
 *
 * The outcome is kept between runs (checkUnlessUnchanged in test/setup/ts-check-record.ts): a run in which nothing
 * the check read or looked for changed replays it without building a program, ~4 s CPU less. Otherwise the
 * diagnostics kept in a .tsbuildinfo (checkIncrementally in test/setup/ts-program.ts) spare the files that did not
 * change their checking, about 40 % of the rest (parsing and binding remain). The last cases show that both give way
 * to every change.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleTypeErrors, examplesCompilerOptions, givenNames, type ReadmeExamples, readmeExamples, typescriptBlocks } from '../readme/examples.ts';
import { checkUnlessUnchanged, type RecordedCheck } from '../setup/ts-check-record.ts';
import { checkIncrementally, diagnosticLine, type IncrementalCheck, projectCompilerOptions, REPO_ROOT, TS_CACHE_DIR } from '../setup/ts-program.ts';

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
let check: RecordedCheck;
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
  // Not checked again while nothing it read or looked for changed (ts-check-record.ts); else disk files are parsed
  // once per worker (ts-program.ts), and only files that changed are checked again (the .tsbuildinfo).
  check = checkUnlessUnchanged({
    rootNames: typeTestFiles,
    options: examplesCompilerOptions(REPO_ROOT),
    virtualFiles,
    checkedFiles: [...typeTestFiles, WRONG.name, CHANGED_SOURCE.name, USES_CHANGED.name, ...examples.files.keys(), ...wrongExamples.files.keys()],
    buildInfoFile: join(TS_CACHE_DIR, 'type-tests.tsbuildinfo'),
    recordFile: join(TS_CACHE_DIR, 'type-tests.check.json'),
  });
}, COMPILE_MS);

/** The diagnostics of one checked file, as `file:line: message`. */
const diagnosticsOf = (file: string): string[] => check.diagnosticsOf(file).map(diagnosticLine);

describe('type tests (test/types/*.types.ts)', () => {
  it('compile without a diagnostic, so every expectTypeOf holds and every @ts-expect-error still errs', () => {
    expect(typeTestFiles.length).toBeGreaterThan(0);
    const found = typeTestFiles.flatMap(diagnosticsOf);
    // What is not any one file's: the options, and globals such as a missing lib.
    found.push(...check.programDiagnostics.map(diagnosticLine));
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
    expect(exampleTypeErrors(check.diagnosticsOf, examples)).toEqual([]);
  }, COMPILE_MS);

  it('report an example that calls the API wrongly, with its README line', () => {
    const errors = exampleTypeErrors(check.diagnosticsOf, wrongExamples);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^README\.md:6: .*version/);
  }, COMPILE_MS);
});

describe('the type-check cache (a .tsbuildinfo kept between runs)', () => {
  // A small program, without lib: what is cached and what is checked again, not how long checking takes.
  const ERA = join(HERE, 'cache-era.ts');
  const USES_ERA = join(HERE, 'cache-uses-era.ts');
  const APART = join(HERE, 'cache-apart.ts');
  const eraText = (era: string) => `/** An era. */\nexport type Era = ${era};\n`;
  const usesEraText = "import type { Era } from './cache-era.ts';\nexport const era: Era = 'modern';\n";
  const apartText = 'export const apart: string = 1;\n';
  const options = { ...projectCompilerOptions(), noLib: true, types: [] };
  let cacheDir = '';
  beforeAll(() => {
    cacheDir = mkdtempSync(join(tmpdir(), 'mcp-actors-tsbuildinfo-'));
  });
  afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

  /** The three files checked against the cache `name` in the temporary folder, with `era` as Era's type. */
  const checkWith = (name: string, era: string, usesEra = usesEraText) =>
    checkIncrementally({
      rootNames: [],
      options,
      virtualFiles: new Map([[ERA, eraText(era)], [USES_ERA, usesEra], [APART, apartText]]),
      checkedFiles: [ERA, USES_ERA, APART],
      buildInfoFile: join(cacheDir, name),
    });
  const lines = (check: IncrementalCheck, file: string) => check.diagnosticsOf(file).map(diagnosticLine);
  const NOT_ASSIGNABLE = [expect.stringMatching(/cache-uses-era\.ts:2: Type '"modern"' is not assignable to type 'Era'/)];
  const APART_ERROR = [expect.stringMatching(/cache-apart\.ts:1: Type 'number' is not assignable to type 'string'/)];

  it('serves unchanged files from the cache, errors included, and checks every file without one', () => {
    const cold = checkWith('unchanged.tsbuildinfo', "'legacy' | 'modern'");
    expect(cold.changedSinceCache).toEqual(new Set([ERA, USES_ERA, APART]));
    const warm = checkWith('unchanged.tsbuildinfo', "'legacy' | 'modern'");
    expect(warm.changedSinceCache).toEqual(new Set());
    expect(lines(warm, USES_ERA)).toEqual([]);
    expect(lines(warm, APART)).toEqual(APART_ERROR);
  });

  it('checks again a file whose dependency changed its declarations, and gives its new diagnostics', () => {
    expect(lines(checkWith('dependency.tsbuildinfo', "'legacy' | 'modern'"), USES_ERA)).toEqual([]);
    const changed = checkWith('dependency.tsbuildinfo', "'legacy' | 'moderm'");
    // cache-uses-era.ts is the same text; what it imports is not.
    expect(changed.changedSinceCache).toEqual(new Set([ERA, USES_ERA]));
    expect(lines(changed, USES_ERA)).toEqual(NOT_ASSIGNABLE);
    expect(lines(changed, APART)).toEqual(APART_ERROR);
    // And back: the error goes as it came.
    const restored = checkWith('dependency.tsbuildinfo', "'legacy' | 'modern'");
    expect(restored.changedSinceCache).toEqual(new Set([ERA, USES_ERA]));
    expect(lines(restored, USES_ERA)).toEqual([]);
  });

  it('checks again a file whose own text changed', () => {
    expect(lines(checkWith('own.tsbuildinfo', "'legacy' | 'modern'"), USES_ERA)).toEqual([]);
    const changed = checkWith('own.tsbuildinfo', "'legacy' | 'modern'", usesEraText.replace("'modern'", "'moderm'"));
    expect(changed.changedSinceCache).toEqual(new Set([USES_ERA]));
    expect(lines(changed, USES_ERA)).toEqual([expect.stringMatching(/cache-uses-era\.ts:2: Type '"moderm"' is not assignable to type 'Era'/)]);
  });

  it('takes a corrupt cache for none, and replaces it', () => {
    const corrupt: Record<string, string> = {
      'truncated.tsbuildinfo': '{"fileNames":[',
      // This TypeScript's version, so TypeScript reads on, and nonsense after it.
      'wrong-shape.tsbuildinfo': JSON.stringify({ version: ts.version, fileNames: 3, fileInfos: 'x' }),
    };
    for (const [name, text] of Object.entries(corrupt)) {
      writeFileSync(join(cacheDir, name), text);
      const first = checkWith(name, "'legacy' | 'moderm'");
      expect(first.changedSinceCache, name).toEqual(new Set([ERA, USES_ERA, APART]));
      expect(lines(first, USES_ERA), name).toEqual(NOT_ASSIGNABLE);
      const second = checkWith(name, "'legacy' | 'moderm'");
      expect(second.changedSinceCache, name).toEqual(new Set());
      expect(lines(second, USES_ERA), name).toEqual(NOT_ASSIGNABLE);
    }
  });

  it('checks every file, run after run, where the cache cannot be read or written, and leaves no temporary file', () => {
    const name = 'a-folder.tsbuildinfo';
    mkdirSync(join(cacheDir, name));
    for (let run = 0; run < 2; run++) {
      const check = checkWith(name, "'legacy' | 'moderm'");
      expect(check.changedSinceCache).toEqual(new Set([ERA, USES_ERA, APART]));
      expect(lines(check, USES_ERA)).toEqual(NOT_ASSIGNABLE);
    }
    expect(readdirSync(cacheDir).filter((file) => file.endsWith('.tmp'))).toEqual([]);
  });
});
