/**
 * The shared `x-mcp-header` rules: which annotations a client must reject
 * (2026-07-28 constraints) and how argument values are found by path.
 */
import { describe, expect, it } from 'vitest';
import { checkMarkedParameters, markedParameters, valueAtPath } from '../../src/protocol/param-headers.ts';

const schemaWith = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });

describe('checkMarkedParameters', () => {
  it('accepts string, integer, boolean and nullable primitives reachable through properties, nested ones included', () => {
    const schema = schemaWith({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      limit: { type: 'integer', 'x-mcp-header': 'Limit' },
      dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
      tenant: { type: 'object', properties: { id: { type: ['string', 'null'], 'x-mcp-header': "Tenant_Id.v2!#$%&'*+^`|~" } } },
      query: { type: 'string' },
    });
    expect(checkMarkedParameters(schema)).toEqual({
      ok: true,
      parameters: [
        { header: 'Region', path: ['region'] },
        { header: 'Limit', path: ['limit'] },
        { header: 'Dry-Run', path: ['dry'] },
        { header: "Tenant_Id.v2!#$%&'*+^`|~", path: ['tenant', 'id'] },
      ],
    });
  });

  it('accepts a schema without marks, a missing schema, and marker-shaped keys that are names or data, not annotations', () => {
    expect(checkMarkedParameters(schemaWith({ text: { type: 'string' } }))).toEqual({ ok: true, parameters: [] });
    expect(checkMarkedParameters(undefined)).toEqual({ ok: true, parameters: [] });
    const lookalikes = schemaWith(
      { 'x-mcp-header': { type: 'string' }, mode: { type: 'object', const: { 'x-mcp-header': 'x' }, default: { 'x-mcp-header': 'y' } } },
      { $defs: { 'x-mcp-header': { type: 'string' } } },
    );
    expect(checkMarkedParameters(lookalikes)).toEqual({ ok: true, parameters: [] });
  });

  it.each([
    ['an empty name', schemaWith({ a: { type: 'string', 'x-mcp-header': '' } }), /"" on \/a is not an HTTP field-name token/],
    ['a name with a space', schemaWith({ a: { type: 'string', 'x-mcp-header': 'My Region' } }), /not an HTTP field-name token/],
    ['a name with a colon', schemaWith({ a: { type: 'string', 'x-mcp-header': 'Region:' } }), /not an HTTP field-name token/],
    ['a name with CR LF', schemaWith({ a: { type: 'string', 'x-mcp-header': 'A\r\nB' } }), /not an HTTP field-name token/],
    ['a non-ASCII name', schemaWith({ a: { type: 'string', 'x-mcp-header': 'Région' } }), /not an HTTP field-name token/],
    ['a name that is not a string', schemaWith({ a: { type: 'string', 'x-mcp-header': 7 } }), /x-mcp-header 7 on \/a/],
    ['names equal ignoring case', schemaWith({ a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'REGION' } }), /REGION on \/b repeats/],
    ['a number property', schemaWith({ a: { type: 'number', 'x-mcp-header': 'A' } }), /\/a, which is not of type string, integer or boolean/],
    ['an object property', schemaWith({ a: { type: 'object', 'x-mcp-header': 'A' } }), /not of type string, integer or boolean/],
    ['a property without a type', schemaWith({ a: { 'x-mcp-header': 'A' } }), /not of type string, integer or boolean/],
    ['a mark inside items', schemaWith({ a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } }), /at \/properties\/a\/items is not reachable/],
    ['a mark inside an object in items', schemaWith({ a: { type: 'array', items: { type: 'object', properties: { b: { type: 'string', 'x-mcp-header': 'B' } } } } }), /at \/properties\/a\/items\/properties\/b is not/],
    ['a mark inside oneOf', schemaWith({ a: { oneOf: [{ type: 'string', 'x-mcp-header': 'A' }, { type: 'integer' }] } }), /at \/properties\/a\/oneOf\/0 is not/],
    ['a mark inside if/then', schemaWith({}, { if: { properties: { a: { type: 'string' } } }, then: { properties: { a: { type: 'string', 'x-mcp-header': 'A' } } } }), /at \/then\/properties\/a is not/],
    ['a mark inside $defs reached by $ref', schemaWith({ a: { $ref: '#/$defs/region' } }, { $defs: { region: { type: 'string', 'x-mcp-header': 'Region' } } }), /at \/\$defs\/region is not/],
    ['a mark on additionalProperties', schemaWith({}, { additionalProperties: { type: 'string', 'x-mcp-header': 'A' } }), /at \/additionalProperties is not/],
    ['a mark on the schema root', { type: 'object', 'x-mcp-header': 'Root' }, /at \/ is not/],
  ])('rejects %s', (_name, schema, reason) => {
    const check = checkMarkedParameters(schema);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.reason).toMatch(reason);
  });
});

describe('markedParameters (the server: no validation)', () => {
  it('lists string marks on the properties chain and ignores the rest', () => {
    const schema = schemaWith({ a: { type: 'number', 'x-mcp-header': 'A' }, b: { type: 'string', 'x-mcp-header': 5 }, c: { type: 'array', items: { 'x-mcp-header': 'C' } } });
    expect(markedParameters(schema)).toEqual([{ header: 'A', path: ['a'] }]);
  });

  it('lists 200,000 marks under one property (as a peer’s tools/list may carry) without overflowing the stack', () => {
    const inner = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`p${i}`, { type: 'string', 'x-mcp-header': `H${i}` }]));
    const marks = markedParameters(schemaWith({ outer: { type: 'object', properties: inner } }));
    expect(marks).toHaveLength(200_000);
    expect(marks.at(-1)).toEqual({ header: 'H199999', path: ['outer', 'p199999'] });
  });
});

describe('valueAtPath', () => {
  it('reads nested own values and gives undefined for missing steps and inherited names', () => {
    const args = { tenant: { id: 't1', flag: false }, n: null };
    expect(valueAtPath(args, ['tenant', 'id'])).toBe('t1');
    expect(valueAtPath(args, ['tenant', 'flag'])).toBe(false);
    expect(valueAtPath(args, ['n'])).toBeNull();
    expect(valueAtPath(args, ['n', 'x'])).toBeUndefined();
    expect(valueAtPath(args, ['missing', 'x'])).toBeUndefined();
    expect(valueAtPath(args, ['toString'])).toBeUndefined();
  });
});
