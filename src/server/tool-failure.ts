/**
 * A tool handler that throws a plain Error failed as a tool, not as a
 * protocol: the spec wants that inside the result with `isError: true`, so
 * the model can see it. Protocol errors (WireError) pass through unchanged.
 */
import { messageOf } from '../../machines/errors.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { WireError } from './errors.ts';

export function toolFailure(error: unknown): JsonObject {
  if (error instanceof WireError) throw error;
  const text = messageOf(error);
  return { content: [{ type: 'text', text }], isError: true };
}
