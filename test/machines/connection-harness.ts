import { createActor, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import { connectionMachine, type Backoff, type ConnectionEmitted, type FirstConnectPolicy, type StreamVerdict } from '../../machines/connection.machine.ts';
import { negotiationMachine } from '../../machines/negotiation.machine.ts';
import { negotiated } from './negotiated.ts';

/**
 * The connection machine under a simulated clock: a transport that the test
 * opens and fails by hand, a negotiation whose probe answers from a script,
 * and liveness probes the test answers or fails by hand.
 */

/** What one negotiation's probe answers: an era, a failure, or nothing at all. */
type Script = 'legacy' | 'modern' | 'silent' | Error;

export function harness(options: { eras: Script[]; backoff?: Backoff | false; random?: number; firstConnect?: FirstConnectPolicy }) {
  const clock = new SimulatedClock();
  const transports: { open(): void; fail(cause: unknown): void; closed: boolean }[] = [];
  const probes: { answer(): void; fail(cause: unknown): void; stopped: boolean }[] = [];
  const eras = [...options.eras];
  let answering: Script = 'modern';
  const negotiate = negotiationMachine.provide({
    actors: {
      discover: fromCallback(({ sendBack }) => {
        answering = eras.shift() ?? eras.at(-1) ?? 'modern';
        if (answering === 'silent') return;
        if (answering instanceof Error) sendBack({ type: 'discover.failed', error: answering });
        else if (answering === 'modern') sendBack({ type: 'discover.modern', negotiated: negotiated('modern') });
        else sendBack({ type: 'discover.legacy', evidence: 'scripted' });
      }),
      initialize: fromCallback(({ sendBack }) => {
        sendBack({ type: 'initialize.legacy', negotiated: negotiated('legacy') });
      }),
      adopt: fromPromise(async () => {}),
    },
  });
  const machine = connectionMachine.provide({
    actors: {
      transport: fromCallback(({ sendBack }) => {
        const handle = {
          closed: false,
          open: () => sendBack({ type: 'transport.opened', silenceMayMeanLegacy: true }),
          fail: (cause: unknown) => sendBack({ type: 'transport.failed', cause }),
        };
        transports.push(handle);
        return () => {
          handle.closed = true;
        };
      }),
      negotiate,
      probe: fromCallback(({ sendBack }) => {
        const handle = {
          stopped: false,
          answer: () => sendBack({ type: 'probe.answered' }),
          fail: (cause: unknown) => sendBack({ type: 'probe.failed', cause }),
        };
        probes.push(handle);
        return () => {
          handle.stopped = true;
        };
      }),
    },
  });
  const actor = createActor(machine, {
    clock,
    input: {
      backoff: options.backoff ?? { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_000 },
      random: () => options.random ?? 0.5,
      ...(options.firstConnect ? { firstConnect: options.firstConnect } : {}),
      negotiation: { era: 'auto', probeTimeoutMs: 2_000, patienceMs: 30_000 },
    },
  });
  const emitted: (ConnectionEmitted | StreamVerdict)[] = [];
  actor.on('*', (event) => emitted.push(event));
  actor.start();
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  /** The running negotiation's state, if one runs. */
  const negotiation = () => {
    const snapshot = actor.getSnapshot().children.negotiation?.getSnapshot();
    return snapshot && 'value' in snapshot ? snapshot.value : undefined;
  };
  return { actor, clock, transports, probes, emitted, negotiation, settle, state: () => actor.getSnapshot().value };
}
