/**
 * The root of every error class the project defines, here so that errors a
 * machine decides on (machines may not import src/) share it with the rest.
 * src/protocol/errors.ts re-exports it.
 */
export abstract class McpActorsError extends Error {
  abstract readonly code: string;
}
