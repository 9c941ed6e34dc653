/**
 * Plain tool schemas: JSON Schemas made only of the everyday keywords (type,
 * properties, required, items, enum, bounds, annotations) with values of the
 * shape every supported dialect's meta-schema demands of them (2020-12,
 * 2019-09, draft-07 agree on these). Such a schema fits its meta-schema by
 * construction, so tool-schemas.ts skips ajv's meta-schema check for it:
 * compiling the 2020-12 meta-schema was most of a server's start-up CPU
 * (about 0.1 s of a 0.35 s start of a bundled stdio server), paid by every
 * process that defines a tool. Anything else (any `$` keyword, `pattern`,
 * `format`, combinators, a value of an unexpected shape, nesting past
 * MAX_PLAIN_DEPTH) is not plain and gets the full check, so the answer only
 * ever saves work, never changes a verdict; test/server/plain-schema.test.ts
 * holds it against ajv's meta-schemas.
 */

/** Deeper schemas get the full meta-schema check (and a cyclic object is never plain). */
const MAX_PLAIN_DEPTH = 32;

const SIMPLE_TYPES: ReadonlySet<unknown> = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);

/** A plain object, as JSON.parse or a literal makes it (a class instance is left to the full check). */
const isRecord = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

const isFiniteNumber = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);

const isNonNegativeInteger = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 0;

const isUniqueStrings = (value: unknown): boolean =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') && new Set(value).size === value.length;

/** `enum`: draft-07 asks for at least one value and no repeats; plain takes distinct strings, finite numbers, booleans and null. */
const isEnumValue = (value: unknown): boolean =>
  Array.isArray(value) &&
  value.length > 0 &&
  value.every((item) => item === null || typeof item === 'string' || typeof item === 'boolean' || isFiniteNumber(item)) &&
  new Set(value).size === value.length;

/** `type`: one simple type, or a non-empty array of distinct ones. */
const isTypeValue = (value: unknown): boolean =>
  SIMPLE_TYPES.has(value) || (Array.isArray(value) && value.length > 0 && value.every((item) => SIMPLE_TYPES.has(item)) && new Set(value).size === value.length);

/** What each plain keyword's value must be; `depth` is the depth of the keyword's schema. */
const KEYWORDS: Readonly<Record<string, (value: unknown, depth: number) => boolean>> = {
  type: isTypeValue,
  properties: (value, depth) => isRecord(value) && Object.values(value).every((schema) => isPlainAt(schema, depth + 1)),
  required: isUniqueStrings,
  items: (value, depth) => isPlainAt(value, depth + 1),
  additionalProperties: (value, depth) => isPlainAt(value, depth + 1),
  enum: isEnumValue,
  const: (value) => value !== undefined,
  default: (value) => value !== undefined,
  examples: Array.isArray,
  title: (value) => typeof value === 'string',
  description: (value) => typeof value === 'string',
  minimum: isFiniteNumber,
  maximum: isFiniteNumber,
  exclusiveMinimum: isFiniteNumber,
  exclusiveMaximum: isFiniteNumber,
  multipleOf: (value) => isFiniteNumber(value) && (value as number) > 0,
  minLength: isNonNegativeInteger,
  maxLength: isNonNegativeInteger,
  minItems: isNonNegativeInteger,
  maxItems: isNonNegativeInteger,
  minProperties: isNonNegativeInteger,
  maxProperties: isNonNegativeInteger,
  uniqueItems: (value) => typeof value === 'boolean',
};

function isPlainAt(schema: unknown, depth: number): boolean {
  if (typeof schema === 'boolean') return true;
  if (!isRecord(schema) || depth > MAX_PLAIN_DEPTH) return false;
  return Object.entries(schema).every(([keyword, value]) => Object.hasOwn(KEYWORDS, keyword) && KEYWORDS[keyword]!(value, depth));
}

/** True when `schema` is plain (see the note at the top): it fits the meta-schema of every supported dialect. */
export function isPlainSchema(schema: unknown): boolean {
  return isRecord(schema) && isPlainAt(schema, 0);
}
