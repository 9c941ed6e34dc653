/**
 * The connection machine's `transport` actor: it opens a fresh transport for
 * one connection attempt, reports `transport.opened` / `transport.failed`,
 * hands what arrives to the connection, and closes the transport when the
 * machine leaves `online` (the attempt is over).
 */
import { fromCallback } from 'xstate';
import { asError } from '../../machines/errors.ts';
import type { StreamEndedError } from '../protocol/errors.ts';
import type { ClassifiedFrame, RequestId } from '../protocol/jsonrpc.ts';
import type { ClientTransport, TransportClosedInfo, TransportFactory } from '../transport/transport.ts';

/** What the transport actor tells the connection it serves, for the transport of the current attempt only. */
export interface TransportSite {
  /** The attempt's transport exists (it may not have started yet). */
  opened(transport: ClientTransport): void;
  frame(frame: ClassifiedFrame): void;
  streamEnded(id: RequestId, error: StreamEndedError): void;
  keepAlive(id: RequestId): void;
  report(error: Error): void;
  /** The attempt is over: forget what belongs to it and close it. */
  dropped(transport: ClientTransport): void;
}

/** Why a transport closed, as the cause of `transport.failed`. */
export function describeClose(info: TransportClosedInfo): Error {
  switch (info.type) {
    case 'exited':
      return new Error(`server process exited (${info.signal ? `signal ${info.signal}` : `code ${info.code}`})`);
    case 'failed':
      return asError(info.cause);
    default:
      return new Error(`transport ${info.type}`);
  }
}

/** The actor the connection machine invokes in `online`, over transports made by `factory`. */
export function transportActor(factory: TransportFactory, site: TransportSite) {
  return fromCallback<{ type: 'never' }, { attempt: number }>(({ sendBack }) => {
    const transport = factory();
    site.opened(transport);
    // Whatever a transport reports after its attempt is over is not this connection's any more.
    let open = true;
    transport
      .start({
        frame: (frame) => open && site.frame(frame),
        requestStreamEnded: (id, error) => open && site.streamEnded(id, error),
        keepAlive: (id) => open && site.keepAlive(id),
        closed: (info) => open && sendBack({ type: 'transport.failed', cause: describeClose(info) }),
        error: (error) => open && site.report(error),
      })
      .then(
        // An HTTP server answers every POST, a legacy one with a 4xx; over stdio a legacy server may stay silent.
        () => open && sendBack({ type: 'transport.opened', silenceMayMeanLegacy: transport.kind !== 'http' }),
        (cause: unknown) => open && sendBack({ type: 'transport.failed', cause }),
      );
    return () => {
      open = false;
      site.dropped(transport);
    };
  });
}
