/**
 * The listen-stream machine as a server runs it by the ten thousand: the same
 * machine, with its two hot steps shared between streams. Every stream
 * starts in the same `acknowledging` snapshot and moves on `ack.sent` to the
 * same `open` snapshot: both depend only on `finishTimeoutMs` (one value per
 * server) and run no action, and xstate snapshots are immutable, so those two
 * are computed once by xstate and then shared. Every other step (and every
 * step of an inspected stream, whose microsteps the inspector shows) is
 * xstate's own `transition`. test/server/machines.test.ts runs every rule of
 * the machine under this logic too.
 */
import type { EventFromLogic, SnapshotFrom } from 'xstate';
import { listenStreamMachine, type ListenStreamInput } from '../../machines/listen-stream.machine.ts';

type Machine = typeof listenStreamMachine;
type Snapshot = SnapshotFrom<Machine>;
type Scope = Parameters<Machine['transition']>[2];

/** The listen-stream machine, sharing its initial and `open` snapshots among the streams that run it. */
export function sharedStepsLogic(machine: Machine = listenStreamMachine): Machine {
  const initial = new Map<number, Snapshot>();
  const opened = new WeakMap<Snapshot, Snapshot>();
  // Everything else (id, config, states, what the inspector reads) is the machine's own.
  const logic = Object.create(machine) as Machine;
  logic.getInitialSnapshot = (scope: Scope, input?: ListenStreamInput): Snapshot => {
    const key = input!.finishTimeoutMs;
    let snapshot = initial.get(key);
    if (!snapshot) initial.set(key, (snapshot = machine.getInitialSnapshot(scope, input)));
    return snapshot;
  };
  logic.transition = (snapshot: Snapshot, event: EventFromLogic<Machine>, scope: Scope): Snapshot => {
    if (event.type !== 'ack.sent' || snapshot.value !== 'acknowledging') return machine.transition(snapshot, event, scope);
    let next = opened.get(snapshot);
    if (!next) opened.set(snapshot, (next = machine.transition(snapshot, event, scope)));
    return next;
  };
  return logic;
}
