/**
 * The error a failed era negotiation ends with. It lives beside the
 * negotiation machine, which decides most of them (machines may not import
 * src/); src/protocol/errors.ts re-exports it. Same shape as the others:
 * fixed `name`, stable `code`, `cause`.
 */
import { McpActorsError } from './errors.ts';

/** Neither era could be negotiated, or the pinned era is not what the server speaks. */
export class NegotiationError extends McpActorsError {
  override readonly name = 'NegotiationError';
  readonly code = 'negotiation_failed';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
