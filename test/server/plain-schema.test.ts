/**
 * isPlainSchema lets a tool schema skip ajv's meta-schema check, so it must
 * never call a schema plain that a meta-schema refuses or that ajv cannot
 * compile. Held against ajv itself, engines set up as tool-schemas.ts sets
 * them up, for every dialect: random schemas of the plain keywords, with
 * near-miss values mixed in (a wrong type name, duplicate `required` names,
 * negative or fractional lengths, a zero `multipleOf`, keywords outside the
 * plain set) so that a predicate that let one through would fail here.
 */
import { Ajv, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainSchema } from '../../src/server/plain-schema.ts';

const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;
const OPTIONS: Options = { strict: false, allErrors: true, validateFormats: true };
const engines = (validateSchema: boolean): Ajv[] =>
  [new Ajv2020({ ...OPTIONS, validateSchema }), new Ajv2019({ ...OPTIONS, validateSchema }), new Ajv({ ...OPTIONS, validateSchema })].map(addFormats);
const DIALECTS = ['2020-12', '2019-09', 'draft-07'];
const checkers = engines(true);
const compilers = engines(false);

const name = fc.constantFrom('a', 'b', 'name', 'text', '__proto__', 'constructor', '');
const typeName = fc.constantFrom('string', 'number', 'integer', 'boolean', 'object', 'array', 'null', 'nope', 'String');
const count = fc.oneof(fc.nat(10), fc.constantFrom(-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY));
const bound = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(Number.NaN, Number.NEGATIVE_INFINITY, '1'));

/** One keyword and a value for it: mostly of the plain shape, sometimes not, sometimes a keyword plain schemas do not use. */
const keyword = (schema: fc.Arbitrary<unknown>): fc.Arbitrary<[string, unknown]> =>
  fc.oneof(
    fc.tuple(fc.constant('type'), fc.oneof(typeName, fc.uniqueArray(typeName, { maxLength: 3 }), fc.array(typeName, { maxLength: 3 }))),
    fc.tuple(fc.constant('properties'), fc.dictionary(name, schema, { maxKeys: 3 })),
    fc.tuple(fc.constant('required'), fc.oneof(fc.uniqueArray(name, { maxLength: 3 }), fc.array(name, { maxLength: 3 }), fc.constant([1]))),
    fc.tuple(fc.constantFrom('items', 'additionalProperties'), fc.oneof(schema, fc.array(schema, { maxLength: 2 }), fc.constant('x'))),
    fc.tuple(fc.constantFrom('enum', 'examples'), fc.oneof(fc.array(fc.oneof(name, fc.constantFrom(0, -0, 1, null, true)), { maxLength: 3 }), fc.array(fc.jsonValue(), { maxLength: 3 }), fc.jsonValue())),
    fc.tuple(fc.constantFrom('const', 'default'), fc.jsonValue()),
    fc.tuple(fc.constantFrom('title', 'description'), fc.oneof(fc.string(), fc.integer())),
    fc.tuple(fc.constantFrom('minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'), fc.oneof(bound, fc.constant(0))),
    fc.tuple(fc.constantFrom('minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'), count),
    fc.tuple(fc.constant('uniqueItems'), fc.oneof(fc.boolean(), fc.constant('yes'))),
    fc.tuple(fc.constantFrom('pattern', 'format', '$ref', '$id', '$schema', 'allOf', 'not'), fc.oneof(fc.constantFrom('(', 'email', '#/nowhere', 'x'), schema)),
  );

const { schema } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.boolean(),
    fc.array(keyword(tie('schema')), { maxLength: 4 }).map((entries) => Object.fromEntries(entries)),
  ),
}));

describe('isPlainSchema', () => {
  it('calls plain only what every dialect’s meta-schema accepts and ajv compiles', () => {
    let plain = 0;
    fc.assert(
      fc.property(schema, (candidate) => {
        if (!isPlainSchema(candidate)) return;
        plain++;
        for (const [index, checker] of checkers.entries()) expect(checker.validateSchema(candidate as object), `${DIALECTS[index]}: ${JSON.stringify(candidate)}`).toBe(true);
        for (const compiler of compilers) {
          const validate = compiler.compile(candidate as object);
          compiler.removeSchema(validate.schema as object);
        }
      }),
      { numRuns: 600 },
    );
    // The generator must reach plain schemas often enough for the property to say something.
    expect(plain).toBeGreaterThan(60);
  });

  it('takes the tool schemas of the demo and the fixtures, and leaves anything else to the full check', () => {
    expect(isPlainSchema({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] })).toBe(true);
    expect(isPlainSchema({ type: 'object', properties: { kind: { type: 'string', enum: ['tools'] }, uris: { type: 'array', items: { type: 'string' } } } })).toBe(true);
    expect(isPlainSchema({ type: 'object' })).toBe(true);
    expect(isPlainSchema({ type: 'nope' })).toBe(false);
    expect(isPlainSchema({ type: 'object', properties: { a: { type: 'string', pattern: '^a' } } })).toBe(false);
    expect(isPlainSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' })).toBe(false);
    expect(isPlainSchema({ type: 'object', required: ['a', 'a'] })).toBe(false);
    expect(isPlainSchema({ type: 'string', enum: [] })).toBe(false);
    expect(isPlainSchema({ type: 'object', description: undefined })).toBe(false);
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    expect(isPlainSchema(cyclic)).toBe(false);
    expect(isPlainSchema(new Date())).toBe(false);
  });
});
