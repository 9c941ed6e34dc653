/**
 * The inspector page's outline of a machine: the same states and transition
 * labels as the machine definition (and so as diagrams/), and the state paths
 * a snapshot value is in.
 */
import { describe, expect, it } from 'vitest';
import type { AnyStateNode } from 'xstate';
import { connectionMachine } from '../../machines/connection.machine.ts';
import { subscriptionMachine } from '../../machines/subscription.machine.ts';
import { activePaths, outlineOf, type StateOutline } from '../../src/inspector/machine-outline.ts';

const paths = (state: StateOutline): string[] => [state.path, ...state.children.flatMap(paths)];
const find = (state: StateOutline, path: string): StateOutline | undefined =>
  state.path === path ? state : state.children.map((child) => find(child, path)).find(Boolean);

describe('machine outline', () => {
  it('has every state node of the machine, by path, and names the root after the machine', () => {
    const outline = outlineOf(subscriptionMachine);
    expect(outline.id).toBe('subscription');
    expect(outline.root.key).toBe('subscription');
    const nodePaths = (node: AnyStateNode): string[] => [node.path.join('.'), ...Object.values(node.states).flatMap((child) => nodePaths(child as AnyStateNode))];
    const expected = nodePaths(subscriptionMachine.root);
    expect(paths(outline.root).sort()).toEqual(expected.sort());
  });

  it('labels transitions as the diagrams do: events, guards, delays and done events', () => {
    const outline = outlineOf(connectionMachine);
    expect(find(outline.root, 'idle')!.on).toEqual(['connect']);
    expect(find(outline.root, 'reconnecting')!.on).toEqual(['after(reconnectDelay)']);
    expect(find(outline.root, 'online.negotiating')!.on).toEqual([
      'done(negotiate as negotiation) [negotiationFailed]',
      'done(negotiate as negotiation) [eraChanged]',
      'done(negotiate as negotiation) [else]',
      'error(negotiate as negotiation)',
    ]);
  });

  it('lists every path a snapshot value is in, ancestors first', () => {
    expect(activePaths('idle')).toEqual(['idle']);
    expect(activePaths({ online: { ready: 'modern' } })).toEqual(['online', 'online.ready', 'online.ready.modern']);
    expect(activePaths({ a: 'x', b: { c: 'y' } })).toEqual(['a', 'a.x', 'b', 'b.c', 'b.c.y']);
  });
});
