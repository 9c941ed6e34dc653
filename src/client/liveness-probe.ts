/**
 * The connection machine's `probe` actor, which its liveness verdict starts
 * when a listen stream ends with no answer: a `server/discover`, and what
 * the wire showed. Any response is an answer (the peer is there); a failure
 * to send or a lost transport is not. How long to wait is the machine's
 * probe timeout: its verdict stops this actor, which abandons the request.
 */
import { fromCallback } from 'xstate';
import type { LivenessNotice } from '../../machines/connection.machine.ts';
import { RequestTimeoutError, RpcError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { RequestOptions } from './ports.ts';

/** Sends a request on the current transport, ready or not (the connection's own path). */
type Request = (method: string, params: JsonObject | undefined, options: RequestOptions) => Promise<JsonObject>;

/** The probe actor over `request`; `patienceMs` bounds the request itself, past any probe timeout. */
export function livenessProbe(request: Request, patienceMs: number) {
  return fromCallback<{ type: 'never' }>(({ sendBack }) => {
    const report = (fact: Extract<LivenessNotice, { type: 'probe.answered' | 'probe.failed' }>) => sendBack(fact);
    const abandon = new AbortController();
    request('server/discover', {}, { timeoutMs: patienceMs, signal: abandon.signal }).then(
      () => report({ type: 'probe.answered' }),
      (error: unknown) => {
        if (abandon.signal.aborted || error instanceof RequestTimeoutError) return;
        report(error instanceof RpcError ? { type: 'probe.answered' } : { type: 'probe.failed', cause: error });
      },
    );
    return () => abandon.abort();
  });
}
