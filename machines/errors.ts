/**
 * The root of every error class the project defines, here so that errors a
 * machine decides on (machines may not import src/) share it with the rest.
 * src/protocol/errors.ts re-exports it.
 */

/**
 * The brand every mcp-actors error carries. `Symbol.for` makes it one symbol
 * across copies of the package, so `isMcpActorsError` holds where
 * `instanceof` fails: two installs in one process (a dependency that brings
 * its own copy, CommonJS beside ESM).
 */
const BRAND: unique symbol = Symbol.for('mcp-actors.error') as never;

/** Every error mcp-actors throws or rejects with extends this; `code` says which condition it is. */
export abstract class McpActorsError<Code extends string = string> extends Error {
  /** A stable, machine-readable name of the condition (one literal per class, or a union where a class has several). */
  abstract readonly code: Code;
  /** The cross-copy brand read by `isMcpActorsError`. */
  declare readonly [BRAND]: true;
  static {
    Object.defineProperty(McpActorsError.prototype, BRAND, { value: true });
  }
}

/**
 * Whether `value` is an error from any copy of mcp-actors. Prefer it to
 * `instanceof McpActorsError`, which is false for an error created by
 * another installed copy of the package.
 */
export function isMcpActorsError(value: unknown): value is McpActorsError {
  return value instanceof Error && (value as Partial<Record<typeof BRAND, unknown>>)[BRAND] === true;
}

/** The message of a thrown value, for a message of our own about it: its `message` when it is an Error, else its string form. */
export const messageOf = (thrown: unknown): string => (thrown instanceof Error ? thrown.message : String(thrown));

/** A thrown value as an Error, for a report that carries one: itself when it is one, else an Error with its string form. */
export const asError = (thrown: unknown): Error => (thrown instanceof Error ? thrown : new Error(String(thrown)));
