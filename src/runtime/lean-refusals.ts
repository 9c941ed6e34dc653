/**
 * What a LeanActor cannot run, found when it is created rather than when a
 * state first reaches it. A LeanActor runs a machine as a root actor with no
 * children and no parent, so it refuses:
 * - `invoke` (any state) and `spawnChild`: it hosts no child actors;
 * - `stopChild`, and `sendTo`/`forwardTo` naming a child by id: there is none;
 * - `sendParent`: it has no parent.
 * Every other built-in works as under `createActor`: `assign`, `raise`
 * (delayed too), `cancel`, `emit`, `log`, `enqueueActions`, and
 * `sendTo`/`forwardTo` to an actor reference or a function returning one (the
 * actor itself or any other actor). `enqueueActions` decides what it enqueues
 * only when it runs: a child it spawns then (like `spawn` inside `assign`)
 * ends the actor in `error` with the same error, naming the state.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { McpActorsError } from '../protocol/errors.ts';
import { builtInAction, PARENT_TARGET, SELF_TARGET, type BuiltInAction } from './xstate-internals.ts';

/** A machine (or, at run time, one of its actions) asks a LeanActor for what it does not do. */
export class LeanActorUnsupportedError extends McpActorsError {
  override readonly name = 'LeanActorUnsupportedError';
  readonly code = 'lean_actor_unsupported';
  constructor(
    /** The machine's id. */
    readonly machine: string,
    /** The state node's id (at creation), or the state value (at run time) where it was found. */
    readonly state: string,
    /** What was refused: `invoke (src)`, `spawnChild`, `spawn`, `stopChild`, `sendParent`, `sendTo('id')`. */
    readonly action: string,
    reason: string,
  ) {
    super(`a LeanActor cannot run machine '${machine}': ${action} in state '${state}' (${reason})`);
  }
}

const NO_CHILDREN = 'a LeanActor does not host child actors: say what the I/O must do with an emitted event instead';

/** Machines already walked and found runnable: a stream's actor is made by the ten thousand, the walk once. */
const runnable = new WeakSet<AnyStateMachine>();

/** Throws a LeanActorUnsupportedError for the first thing in the machine a LeanActor cannot run. */
export function refuseUnsupported(machine: AnyStateMachine): void {
  if (runnable.has(machine)) return;
  visit(machine, machine.root);
  runnable.add(machine);
}

/** The refusal for a child created at run time (`spawn` in `assign`, `enqueue.spawnChild`), in the state it was in. */
export function childRefusal(machine: AnyStateMachine, stateValue: unknown): LeanActorUnsupportedError {
  return new LeanActorUnsupportedError(machine.id, JSON.stringify(stateValue), 'spawn', NO_CHILDREN);
}

function visit(machine: AnyStateMachine, node: AnyStateNode): void {
  const invoked = node.invoke[0];
  if (invoked) throw new LeanActorUnsupportedError(machine.id, node.id, `invoke (${describeSource(invoked.src)})`, NO_CHILDREN);
  check(machine, node, node.entry);
  check(machine, node, node.exit);
  if (node.type === 'compound') check(machine, node, node.initial.actions);
  for (const transitions of node.transitions.values()) for (const transition of transitions) check(machine, node, transition.actions);
  for (const transition of node.always ?? []) check(machine, node, transition.actions);
  for (const child of Object.values(node.states)) visit(machine, child);
}

function check(machine: AnyStateMachine, node: AnyStateNode, actions: readonly unknown[]): void {
  for (const action of actions) {
    const builtIn = builtInAction(implementationOf(machine, action));
    const refusal = builtIn && refusalOf(builtIn);
    if (refusal) throw new LeanActorUnsupportedError(machine.id, node.id, refusal.action, refusal.reason);
  }
}

/** An action as written in a state (a name, `{ type, params }`, or the function itself) → what runs. */
function implementationOf(machine: AnyStateMachine, action: unknown): unknown {
  const actions: Record<string, unknown> = machine.implementations.actions;
  if (typeof action === 'string') return actions[action];
  if (typeof action === 'object' && action !== null && 'type' in action && typeof action.type === 'string') return actions[action.type];
  return action;
}

function refusalOf({ type, to }: BuiltInAction): { action: string; reason: string } | undefined {
  switch (type) {
    case 'xstate.spawnChild':
      return { action: 'spawnChild', reason: NO_CHILDREN };
    case 'xstate.stopChild':
      return { action: 'stopChild', reason: 'a LeanActor has no child actors to stop' };
    case 'xstate.sendTo':
      if (to === PARENT_TARGET) return { action: 'sendParent', reason: 'a LeanActor has no parent' };
      if (typeof to === 'string' && to !== SELF_TARGET) return { action: `sendTo('${to}')`, reason: 'a LeanActor has no child actors to send to' };
      return undefined;
    default:
      return undefined;
  }
}

function describeSource(src: unknown): string {
  return typeof src === 'string' ? src : 'inline logic';
}
