/**
 * HTTP requests that meet a socket the server had closed. A keep-alive socket
 * the server closed while idle fails the next request on it ("other side
 * closed") before any response header: the server answered nothing, and the
 * request may go again on a fresh connection, as browsers resend on a reused
 * connection (RFC 9110 §9.2.2). Except a `tools/call`: the server may have read
 * it, and a tool run twice could act twice.
 */
import { OutcomeUnknownError } from '../protocol/errors.ts';
import type { JsonRpcRequest } from '../protocol/jsonrpc.ts';
import type { Fetch } from './auth/discovery.ts';
import { HttpRedirectError } from './redirects.ts';

/** How long the OPTIONS asking whether the server is there (after a tools/call's POST was reset) may take. */
const PROBE_TIMEOUT_MS = 5_000;

/** A fetch's options, with the signal that cancels it. */
type SignalledInit = RequestInit & { signal: AbortSignal };

/**
 * A fetch that goes again, once, when it failed on a closed socket. A timeout, a refused connection or a DNS error
 * is not a closed socket.
 */
export function fetchResending(fetch: Fetch, endpoint: URL, init: SignalledInit): Promise<Response> {
  return fetch(endpoint, init).catch((error: unknown) => {
    if (init.signal.aborted || !isClosedSocket(error)) throw error;
    return fetch(endpoint, init);
  });
}

/**
 * Posts a `tools/call` once. Reset before any response header, it is not resent: whether the server is still there
 * is asked safely instead, by an OPTIONS with `probeHeaders()` (no session), resent as `fetchResending` does. One that
 * answers lost only a stale socket, and the call fails alone with OutcomeUnknownError; one that does not is gone, as
 * a refusal says, and the reset is thrown. Not a HEAD: frameworks route a HEAD to the GET handler, which may open an
 * event stream. Bounded: a server that does not answer it soon counts as gone.
 */
export async function postToolCall(fetch: Fetch, endpoint: URL, init: SignalledInit, call: JsonRpcRequest, probeHeaders: () => Headers): Promise<Response> {
  try {
    return await fetch(endpoint, init);
  } catch (error) {
    if (init.signal.aborted || !isClosedSocket(error)) throw error;
    const signal = AbortSignal.any([init.signal, AbortSignal.timeout(PROBE_TIMEOUT_MS)]);
    // Any status will do, a redirect we do not follow too; its body is not read.
    const answered = await fetchResending(fetch, endpoint, { method: 'OPTIONS', headers: probeHeaders(), signal }).then(
      (response) => response.body?.cancel().then(() => true, () => true) ?? true,
      (probeError: unknown) => probeError instanceof HttpRedirectError,
    );
    if (!answered) throw error;
    throw new OutcomeUnknownError(call.method, call.id, { cause: error });
  }
}

/** undici's fetch failing because the peer closed the socket under it (the cause's code says so). */
function isClosedSocket(error: unknown): boolean {
  const code = error instanceof TypeError ? (error.cause as { code?: unknown } | undefined)?.code : undefined;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}
