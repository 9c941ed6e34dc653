/**
 * The `x-mcp-header` annotation of 2026-07-28: a tool's inputSchema may mark
 * primitive arguments, reachable from the root through `properties` keys
 * only, to be mirrored into `Mcp-Param-{Name}` HTTP headers. Pure functions
 * shared by the server (which checks the headers against the body) and the
 * HTTP client transport (which sends them, and must reject a tool whose
 * annotations break the spec's constraints).
 */
import type { JsonObject } from './jsonrpc.ts';

export interface MarkedParameter {
  /** The `{Name}` of `Mcp-Param-{Name}`, as the schema spells it. */
  header: string;
  /** The chain of `properties` keys from the schema root to the argument. */
  path: string[];
}

export type MarkedParameterCheck =
  | { ok: true; parameters: MarkedParameter[] }
  | { ok: false; reason: string };

const MARKER = 'x-mcp-header';

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every string `x-mcp-header` reachable through `properties` keys, with its property path; no validation. */
export function markedParameters(schema: JsonObject, path: string[] = [], found: MarkedParameter[] = []): MarkedParameter[] {
  const marker = schema[MARKER];
  if (typeof marker === 'string' && path.length > 0) found.push({ header: marker, path });
  if (isObject(schema.properties)) {
    // Into one list: spreading a subtree's marks into push() overflows the call stack past some 150,000 of them.
    for (const [key, child] of Object.entries(schema.properties)) if (isObject(child)) markedParameters(child, [...path, key], found);
  }
  return found;
}

/** The instance value at a property path, or undefined when any step is missing. */
export function valueAtPath(args: JsonObject, path: readonly string[]): unknown {
  let current: unknown = args;
  for (const key of path) {
    if (!isObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/** RFC 9110 `1*tchar`: no controls, no spaces, no separators. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE_TYPES: ReadonlySet<unknown> = new Set(['string', 'integer', 'boolean']);
/** Keywords whose values are instance data, not schemas: a marker-shaped key inside them is no annotation. */
const INSTANCE_KEYWORDS: ReadonlySet<string> = new Set(['const', 'enum', 'default', 'examples']);
/** Keywords whose values map names to schemas, so the map's own keys are names, not keywords. */
const SCHEMA_MAPS: ReadonlySet<string> = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

const pointer = (steps: readonly string[]): string => (steps.length === 0 ? '/' : steps.map((step) => `/${step}`).join(''));

/** The location of a marker in a part of the schema that is not statically reachable, if any. */
function strayMarker(value: unknown, at: string[]): string | undefined {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = strayMarker(item, [...at, String(index)]);
      if (found) return found;
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  if (Object.hasOwn(value, MARKER)) return pointer(at);
  for (const [key, child] of Object.entries(value)) {
    const found = strayInKeyword(key, child, at);
    if (found) return found;
  }
  return undefined;
}

/** A stray marker under one keyword of a schema at `at`. */
function strayInKeyword(key: string, child: unknown, at: string[]): string | undefined {
  if (INSTANCE_KEYWORDS.has(key)) return undefined;
  if (!SCHEMA_MAPS.has(key) || !isObject(child)) return strayMarker(child, [...at, key]);
  for (const [name, schema] of Object.entries(child)) {
    const found = strayMarker(schema, [...at, key, name]);
    if (found) return found;
  }
  return undefined;
}

function primitiveType(schema: JsonObject): boolean {
  const { type } = schema;
  if (PRIMITIVE_TYPES.has(type)) return true;
  // A nullable primitive: a null value simply omits the header.
  return Array.isArray(type) && type.some((entry) => PRIMITIVE_TYPES.has(entry)) && type.every((entry) => entry === 'null' || PRIMITIVE_TYPES.has(entry));
}

interface RawMarker {
  value: unknown;
  path: string[];
  schema: JsonObject;
}

/** Walks the `properties` chain, collecting markers on it; returns the first marker found off it, if any. */
function collectMarkers(schema: JsonObject, path: string[], at: string[], found: RawMarker[]): string | undefined {
  if (Object.hasOwn(schema, MARKER)) {
    if (path.length === 0) return pointer(at);
    found.push({ value: schema[MARKER], path, schema });
  }
  for (const [key, child] of Object.entries(schema)) {
    if (key === MARKER) continue;
    if (key === 'properties' && isObject(child)) {
      for (const [name, sub] of Object.entries(child)) {
        const stray = isObject(sub) ? collectMarkers(sub, [...path, name], [...at, key, name], found) : undefined;
        if (stray) return stray;
      }
      continue;
    }
    const stray = strayInKeyword(key, child, at);
    if (stray) return stray;
  }
  return undefined;
}

/**
 * Checks every `x-mcp-header` of a tool's inputSchema against the spec's
 * constraints: a non-empty token, unique ignoring case, on a string,
 * integer or boolean property reachable through `properties` keys alone.
 */
export function checkMarkedParameters(inputSchema: unknown): MarkedParameterCheck {
  if (!isObject(inputSchema)) return { ok: true, parameters: [] };
  const found: RawMarker[] = [];
  const stray = collectMarkers(inputSchema, [], [], found);
  if (stray) return { ok: false, reason: `x-mcp-header at ${stray} is not reachable from the schema root through properties alone` };
  const parameters: MarkedParameter[] = [];
  const names = new Set<string>();
  for (const { value, path, schema } of found) {
    const where = pointer(path);
    if (typeof value !== 'string' || !TOKEN.test(value)) {
      return { ok: false, reason: `x-mcp-header ${JSON.stringify(value)} on ${where} is not an HTTP field-name token` };
    }
    const folded = value.toLowerCase();
    if (names.has(folded)) return { ok: false, reason: `x-mcp-header ${value} on ${where} repeats another header name (ignoring case)` };
    names.add(folded);
    if (!primitiveType(schema)) {
      return { ok: false, reason: `x-mcp-header ${value} marks ${where}, which is not of type string, integer or boolean` };
    }
    parameters.push({ header: value, path });
  }
  return { ok: true, parameters };
}
