/**
 * A shallow check of tool arguments against the tool's `inputSchema`:
 * required properties present and top-level property types right. Enough to
 * turn wrong params into -32602 before a handler sees them; handlers that
 * need deep validation do their own.
 */
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { InvalidParamsError } from './errors.ts';

const typeOf = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
};

const matches = (expected: unknown, actual: string): boolean => {
  const types = Array.isArray(expected) ? expected : [expected];
  return types.some((type) => type === actual || (type === 'number' && actual === 'integer'));
};

export function checkArguments(tool: string, schema: JsonObject, args: JsonObject): void {
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const key of required) {
    if (typeof key === 'string' && args[key] === undefined) {
      throw new InvalidParamsError(`Invalid params: tool ${tool} needs argument ${key}`);
    }
  }
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null) return;
  for (const [key, value] of Object.entries(args)) {
    const property = (properties as Record<string, unknown>)[key];
    if (typeof property !== 'object' || property === null) continue;
    const expected = (property as JsonObject).type;
    if (expected !== undefined && !matches(expected, typeOf(value))) {
      throw new InvalidParamsError(`Invalid params: argument ${key} of tool ${tool} must be ${JSON.stringify(expected)}`);
    }
  }
}
