/**
 * Errors as a person reads them and as `--json` carries them. One line names
 * the innermost system error when the chain has one (`fetch failed` caused by
 * `connect ECONNREFUSED 127.0.0.1:3000` reads `ECONNREFUSED 127.0.0.1:3000`);
 * otherwise the outermost message, which for this package's own errors
 * already says what went wrong. The JSON form keeps the whole chain.
 */

/** An error as `--json` prints it: an Error's own fields survive JSON.stringify this way, its cause chain included. */
export interface SerializedError {
  name: string;
  message: string;
  code?: string | number;
  cause?: SerializedError | string | number | boolean | null;
}

type SystemError = Error & { code: string; address?: unknown; port?: unknown; path?: unknown; hostname?: unknown };

const MAX_DEPTH = 8;

const isSystemError = (value: unknown): value is SystemError => {
  const code = value instanceof Error ? (value as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^E[A-Z0-9_]+$/.test(code);
};

/** The next link of a chain: `cause`, or an AggregateError's first error (a name that resolved to ::1 and 127.0.0.1). */
function next(error: Error): unknown {
  if (error.cause !== undefined) return error.cause;
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors[0];
  return undefined;
}

/** The innermost system error (ECONNREFUSED, ENOENT, …) in a cause chain, if there is one. */
function innermostSystemError(error: unknown): SystemError | undefined {
  let found: SystemError | undefined;
  let current = error;
  for (let depth = 0; current instanceof Error && depth < MAX_DEPTH; depth++) {
    if (isSystemError(current)) found = current;
    current = next(current);
  }
  return found;
}

/** `ECONNREFUSED 127.0.0.1:3000`, `ENOENT /usr/bin/missing`, `ENOTFOUND example.invalid`. */
function describeSystemError(error: SystemError): string {
  if (typeof error.address === 'string') return `${error.code} ${error.address}${error.port !== undefined ? `:${String(error.port)}` : ''}`;
  if (typeof error.path === 'string') return `${error.code} ${error.path}`;
  if (typeof error.hostname === 'string') return `${error.code} ${error.hostname}`;
  return firstLine(error.message) || error.code;
}

const firstLine = (text: string): string => text.split('\n')[0]!.trim();

/** A cause of any shape as one short line a person can act on. */
export function describeCause(cause: unknown): string {
  const system = innermostSystemError(cause);
  if (system) return describeSystemError(system);
  if (cause instanceof Error) return firstLine(cause.message) || cause.name;
  if (typeof cause === 'string') return cause;
  if (cause === undefined) return 'unknown';
  try {
    return JSON.stringify(cause);
  } catch {
    return String(cause);
  }
}

/** An error (or any thrown value) as `{name, message, code, cause}`, its cause chain followed a few links deep. */
export function serializeError(error: unknown, depth = 0): SerializedError {
  if (!(error instanceof Error)) return { name: typeof error, message: describeCause(error) };
  const code = (error as { code?: unknown }).code;
  const cause = next(error);
  return {
    name: error.name,
    message: error.message,
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(cause === undefined || depth >= MAX_DEPTH ? {} : { cause: serializeCause(cause, depth + 1) }),
  };
}

function serializeCause(cause: unknown, depth: number): SerializedError['cause'] {
  if (cause === null || typeof cause === 'string' || typeof cause === 'number' || typeof cause === 'boolean') return cause;
  return serializeError(cause, depth);
}
