/**
 * src/protocol/mcp-types.ts against the specification: each interface has
 * exactly the union of both revisions' schema properties, and a property is
 * required in the type exactly when both revisions require it (a field one
 * era requires and the other lacks is optional, and documented as that era's).
 * The schema's fields are in spec-fields.json, extracted from both schema.json files.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

interface SpecFields {
  defs: Record<string, Record<'2025-11-25' | '2026-07-28', { properties: string[]; required: string[] }>>;
}
const spec = JSON.parse(readFileSync(new URL('./spec-fields.json', import.meta.url), 'utf8')) as SpecFields;
const TYPES = fileURLToPath(new URL('../../src/protocol/mcp-types.ts', import.meta.url));
/** Our name where it differs from the schema's. */
const OUR_NAME: Record<string, string> = { Implementation: 'ServerInfo' };

// The ES library alone, no DOM and no @types: the file declares protocol shapes only, and parsing Node's and the
// DOM's declarations was ~1.5 s of CPU for nothing (the first test shows the file checks without them).
const program = ts.createProgram([TYPES], {
  strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], types: [],
  module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, allowImportingTsExtensions: true,
});
const checker = program.getTypeChecker();
const source = program.getSourceFile(TYPES)!;
const exported = new Map(checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).map((symbol) => [symbol.name, symbol]));

/** The interface's properties (inherited ones included), each with whether it is optional. */
function fieldsOf(name: string): Map<string, boolean> {
  const symbol = exported.get(name);
  if (!symbol) throw new Error(`src/protocol/mcp-types.ts exports no ${name}`);
  const type = checker.getDeclaredTypeOfSymbol(symbol);
  return new Map(checker.getPropertiesOfType(type).map((property) => [property.name, (property.flags & ts.SymbolFlags.Optional) !== 0]));
}

describe('MCP types match both revisions of the specification', () => {
  it('are read from a program in which src/protocol/mcp-types.ts type-checks: no type below is an error type', () => {
    expect(ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '))).toEqual([]);
  });

  for (const [def, eras] of Object.entries(spec.defs)) {
    const ours = OUR_NAME[def] ?? def;
    it(`${ours}: the union of both eras' fields, required where both require it`, () => {
      const fields = fieldsOf(ours);
      const union = [...new Set([...eras['2025-11-25'].properties, ...eras['2026-07-28'].properties])].sort();
      expect([...fields.keys()].sort()).toEqual(union);
      const requiredByBoth = eras['2025-11-25'].required.filter((field) => eras['2026-07-28'].required.includes(field)).sort();
      expect([...fields].filter(([, optional]) => !optional).map(([field]) => field).sort()).toEqual(requiredByBoth);
    });
  }
});
