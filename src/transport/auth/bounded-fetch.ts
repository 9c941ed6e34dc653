/**
 * The fetch every OAuth exchange goes through (discovery, registration, tokens). What a server answers there is
 * read in one piece (by oauth4webapi, or `response.json()`), so it is bounded in bytes and in time, as the
 * transport's own reads are: a metadata document that never ends costs at most `maxBodyBytes` and `timeoutMs`,
 * not the process's memory.
 */
import type { Fetch } from './discovery.ts';

/** The largest OAuth response body read; metadata and token responses are a few kilobytes. */
export const MAX_AUTH_BODY_BYTES = 1024 * 1024;
/** The longest one OAuth exchange may take, its body included. */
export const AUTH_FETCH_TIMEOUT_MS = 30_000;

/** `fetcher`, with each request given up after `timeoutMs` and each response body cut off past `maxBodyBytes`. */
export function boundedFetch(fetcher: Fetch, maxBodyBytes = MAX_AUTH_BODY_BYTES, timeoutMs = AUTH_FETCH_TIMEOUT_MS): Fetch {
  return async (input, init = {}) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const response = await fetcher(input, { ...init, signal: init.signal ? AbortSignal.any([init.signal, timeout]) : timeout });
    if (response.body === null) return response;
    let read = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          read += chunk.byteLength;
          // Erroring the pipe cancels the response body, and with it the connection.
          if (read > maxBodyBytes) controller.error(new RangeError(`an authorization response body exceeds ${maxBodyBytes} bytes`));
          else controller.enqueue(chunk);
        },
      }),
    );
    const bounded = new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
    // What a made Response cannot be given: where the answer came from (oauth4webapi and error messages read them).
    Object.defineProperties(bounded, { url: { value: response.url }, redirected: { value: response.redirected } });
    return bounded;
  };
}
