/**
 * The type-check record (ts-check-record.ts) on a small program of real files in a scratch folder, without lib: what
 * is replayed and what is checked again, not how long checking takes.
 */
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkUnlessUnchanged, type RecordedCheck } from './ts-check-record.ts';
import { diagnosticLine, projectCompilerOptions } from './ts-program.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-actors-check-record-'));
  write('era.ts', "/** An era. */\nexport type Era = 'legacy' | 'modern';\n");
  write('uses.ts', "import type { Era } from './era.ts';\nexport const era: Era = 'modern';\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string) => writeFileSync(join(dir, name), text);
const options = () => ({ ...projectCompilerOptions(), noLib: true, types: [] });

/** `uses.ts` (and the virtual file, when given) checked against the record in the scratch folder. */
function check(virtualText?: string): RecordedCheck {
  const virtual = join(dir, 'virtual.ts');
  const virtualFiles = new Map(virtualText === undefined ? [] : [[virtual, virtualText]]);
  return checkUnlessUnchanged({
    rootNames: [join(dir, 'uses.ts')],
    options: options(),
    virtualFiles,
    checkedFiles: [join(dir, 'uses.ts'), ...virtualFiles.keys()],
    buildInfoFile: join(dir, 'check.tsbuildinfo'),
    recordFile: join(dir, 'check.json'),
  });
}
const lines = (outcome: RecordedCheck, name = 'uses.ts') => outcome.diagnosticsOf(join(dir, name)).map(diagnosticLine);

describe('a recorded type check', () => {
  it('is replayed, diagnostics and their lines included, while nothing it read changed', () => {
    write('uses.ts', "import type { Era } from './era.ts';\n\nexport const era: Era = 'moderm';\n");
    const first = check();
    const second = check();
    expect([first.replayed, second.replayed]).toEqual([false, true]);
    expect(lines(second)).toEqual(lines(first));
    expect(lines(second)).toEqual([expect.stringMatching(/uses\.ts:3: Type '"moderm"' is not assignable to type 'Era'/)]);
    expect(second.programDiagnostics.map(diagnosticLine)).toEqual(first.programDiagnostics.map(diagnosticLine));
  });

  it('runs again when a file it read changed, even one it only imports', () => {
    expect(lines(check())).toEqual([]);
    write('era.ts', "/** An era, misspelt. */\nexport type Era = 'legacy' | 'moderm';\n");
    const changed = check();
    expect(changed.replayed).toBe(false);
    expect(lines(changed)).toEqual([expect.stringMatching(/uses\.ts:2: Type '"modern"' is not assignable/)]);
    expect(check().replayed).toBe(true);
  });

  it('runs again when a file appears where resolution looked for one, and when one it read is gone', () => {
    write('uses.ts', "import type { Era } from './later.ts';\nexport const era: Era = 'modern';\n");
    expect(lines(check())).toEqual([expect.stringMatching(/uses\.ts:1: Cannot find module '\.\/later\.ts'/)]);
    expect(check().replayed).toBe(true);
    write('later.ts', "export type Era = 'modern';\n");
    const added = check();
    expect([added.replayed, lines(added)]).toEqual([false, []]);
    unlinkSync(join(dir, 'later.ts'));
    const removed = check();
    expect(removed.replayed).toBe(false);
    expect(lines(removed)).toEqual([expect.stringMatching(/Cannot find module '\.\/later\.ts'/)]);
  });

  it('keys the record by the virtual files and what is checked', () => {
    const first = check("export const n: number = 'one';\n");
    expect(lines(first, 'virtual.ts')).toEqual([expect.stringMatching(/virtual\.ts:1: Type 'string' is not assignable to type 'number'/)]);
    const other = check('export const n: number = 1;\n');
    expect([other.replayed, lines(other, 'virtual.ts')]).toEqual([false, []]);
    const without = check();
    expect(without.replayed).toBe(false);
    expect(() => without.diagnosticsOf(join(dir, 'virtual.ts'))).toThrow(/not one of the checked files/);
  });

  it('takes an unreadable record for none, and replaces it', () => {
    expect(check().replayed).toBe(false);
    for (const text of ['{"key":', '{"key":"other"}', 'null']) {
      write('check.json', text);
      expect(check().replayed, text).toBe(false);
      expect(check().replayed, text).toBe(true);
    }
  });
});
