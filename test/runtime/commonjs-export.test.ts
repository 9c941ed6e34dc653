import { describe, expect, it } from 'vitest';
import { commonJsExport } from '../../src/runtime/commonjs-export.ts';

describe('commonJsExport', () => {
  const createClient = () => 'client';

  it("reads the named export, as Node's import() of a CommonJS package gives it", () => {
    expect(commonJsExport({ createClient, default: { createClient: () => 'other' } }, 'createClient')).toBe(createClient);
  });

  it("reads the default export's property, as a code-splitting bundler's chunk gives it", () => {
    expect(commonJsExport({ default: { createClient } }, 'createClient')).toBe(createClient);
  });

  it('is undefined when neither has it', () => {
    expect(commonJsExport({ default: {} }, 'createClient')).toBeUndefined();
    expect(commonJsExport({}, 'createClient')).toBeUndefined();
  });
});
