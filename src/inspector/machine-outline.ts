/**
 * A machine's states as plain data for the local inspector page: the same
 * resolved state nodes (`machine.root`) that `src/diagrams/` draws as
 * Mermaid, so the page and `diagrams/` show one definition. The page draws
 * nested boxes from it and highlights the paths a snapshot is in.
 */
import type { AnyStateMachine, AnyStateNode, StateValue } from 'xstate';
import { labelledTransitions } from '../diagrams/mermaid.ts';

/** One state of a machine: its key, dotted path from the root (`online.ready.modern`), kind, children and exits. */
export interface StateOutline {
  key: string;
  path: string;
  type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  children: StateOutline[];
  /** The transitions defined on this state, labelled as the diagrams label them (`ack [honored]`, `after(ackTimeout)`). */
  on: string[];
}

/** The outline of `machine`: its id and its root state. */
export interface MachineOutline {
  id: string;
  root: StateOutline;
}

export function outlineOf(machine: AnyStateMachine): MachineOutline {
  return { id: machine.id, root: outlineState(machine.root) };
}

function outlineState(node: AnyStateNode): StateOutline {
  return {
    key: node.parent ? node.key : node.machine.id,
    path: node.path.join('.'),
    type: node.type,
    children: (Object.values(node.states) as AnyStateNode[]).map(outlineState),
    on: [...new Set(labelledTransitions(node).map(({ label }) => label))],
  };
}

/** Every state path a snapshot value is in, ancestors included: `{online: {ready: 'modern'}}` → `online`, `online.ready`, `online.ready.modern`. */
export function activePaths(value: StateValue, prefix = ''): string[] {
  const join = (key: string) => (prefix ? `${prefix}.${key}` : key);
  if (typeof value === 'string') return [join(value)];
  return Object.entries(value).flatMap(([key, inner]) => [join(key), ...(inner === undefined ? [] : activePaths(inner, join(key)))]);
}
