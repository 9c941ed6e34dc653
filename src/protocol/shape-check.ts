/**
 * Structural checks for what a peer sends: small composable guards, each
 * answering `undefined` when the value fits and a mismatch (where, what was
 * expected, what came) when it does not. Nothing is allocated on the happy
 * path: the path of a mismatch is built only while it travels back up.
 * Fields a shape does not name are not looked at, so extensions pass through.
 */

/** Why a value does not fit: `path` from the checked root (keys and indexes), what was expected, and the value found. */
export interface ShapeMismatch {
  path: (string | number)[];
  expected: string;
  actual: unknown;
}

/** A structural guard: `undefined` when the value fits. */
export type ShapeCheck = (value: unknown) => ShapeMismatch | undefined;

const mismatch = (expected: string, actual: unknown): ShapeMismatch => ({ path: [], expected, actual });

/** Prepends one step to a mismatch found below it. */
const under = (step: string | number, found: ShapeMismatch): ShapeMismatch => {
  found.path.unshift(step);
  return found;
};

/** A plain JSON object: not null, not an array. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Any string. */
export const aString: ShapeCheck = (value) => (typeof value === 'string' ? undefined : mismatch('a string', value));
/** Any number. */
export const aNumber: ShapeCheck = (value) => (typeof value === 'number' ? undefined : mismatch('a number', value));
/** `true` or `false`. */
export const aBoolean: ShapeCheck = (value) => (typeof value === 'boolean' ? undefined : mismatch('a boolean', value));
/** Any JSON object, its fields unchecked (a JSON Schema, `_meta`). */
export const anObject: ShapeCheck = (value) => (isJsonObject(value) ? undefined : mismatch('an object', value));

/** One of a few string literals. */
export function oneOf(...literals: string[]): ShapeCheck {
  const allowed = new Set(literals);
  const expected = literals.map((literal) => JSON.stringify(literal)).join(' or ');
  return (value) => (typeof value === 'string' && allowed.has(value) ? undefined : mismatch(expected, value));
}

/** An array whose every item passes `item`. */
export function arrayOf(item: ShapeCheck): ShapeCheck {
  return (value) => {
    if (!Array.isArray(value)) return mismatch('an array', value);
    for (let index = 0; index < value.length; index++) {
      const found = item(value[index]);
      if (found) return under(index, found);
    }
    return undefined;
  };
}

/** An object with every `required` field and, where present, fitting `optional` fields; other fields are not checked. */
export function objectWith(required: Record<string, ShapeCheck>, optional: Record<string, ShapeCheck> = {}): ShapeCheck {
  const must = Object.entries(required);
  const may = Object.entries(optional);
  return (value) => {
    if (!isJsonObject(value)) return mismatch('an object', value);
    for (const [key, check] of must) {
      const found = check(value[key]);
      if (found) return under(key, found);
    }
    for (const [key, check] of may) {
      const field = value[key];
      if (field === undefined) continue;
      const found = check(field);
      if (found) return under(key, found);
    }
    return undefined;
  };
}

/** An object whose every value passes `item` (a map keyed by name). */
export function recordOf(item: ShapeCheck): ShapeCheck {
  return (value) => {
    if (!isJsonObject(value)) return mismatch('an object', value);
    for (const key in value) {
      const found = item(value[key]);
      if (found) return under(key, found);
    }
    return undefined;
  };
}

/** An object whose `field` (a string) picks the shape it must have. */
export function taggedBy(field: string, shapes: Record<string, ShapeCheck>): ShapeCheck {
  const tags = oneOf(...Object.keys(shapes));
  return (value) => {
    if (!isJsonObject(value)) return mismatch('an object', value);
    const tag = value[field];
    const unknownTag = tags(tag);
    if (unknownTag) return under(field, unknownTag);
    return shapes[tag as string]!(value);
  };
}

/** The first of `shapes` the value fits; when it fits none, the mismatch of the last. */
export function eitherOf(...shapes: ShapeCheck[]): ShapeCheck {
  return (value) => {
    let found: ShapeMismatch | undefined;
    for (const shape of shapes) {
      found = shape(value);
      if (!found) return undefined;
    }
    return found;
  };
}

/** A path as one reads it in code: `tools[2].inputSchema`. */
export function describePath(root: string, path: (string | number)[]): string {
  return path.reduce<string>((text, step) => (typeof step === 'number' ? `${text}[${step}]` : `${text}.${step}`), root);
}

/** What a value is, for a message: `null`, `an array`, `a number (3)`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const shown = JSON.stringify(value);
  return `a ${typeof value} (${shown.length > 40 ? `${shown.slice(0, 40)}…` : shown})`;
}
