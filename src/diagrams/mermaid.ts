/**
 * Draws an xstate v5 machine as a Mermaid `stateDiagram-v2`, read from the
 * machine's resolved state nodes (`machine.root`), so the picture is the
 * machine itself rather than a hand-kept copy.
 *
 * Mermaid layout rules shape the output:
 * - ids are state paths (`cache_recovering_backoff`) and the state's own key
 *   is its label, so two `active` children of different parents stay apart;
 * - Mermaid moves a state into the last composite block that mentions it, so
 *   an edge is written inside a block only when both ends are direct children
 *   of that block's state; every other edge is written at the top level;
 * - composite states cannot carry description lines, so what happens inside a
 *   composite without leaving it (invoked actors, targetless transitions,
 *   transitions into its own descendants) is appended to its label on the same
 *   line: Mermaid sizes a composite's header for one line, so extra lines would
 *   spill into the body under the initial-state dot;
 * - transitions sharing source and target are drawn as one edge with a line
 *   per trigger, since parallel edges get overlapping labels.
 * Output depends only on the machine's definition order: no timestamps.
 */
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';

const INDENT = '  ';

/** A transition's trigger as a reader would say it: `ack [honored]`, `after(ackTimeout)`, `done(listen)`. */
interface Trigger {
  event: string;
  guard: string | undefined;
}

interface Edge {
  source: AnyStateNode;
  target: AnyStateNode;
  labels: string[];
}

/** What a state does without leaving it: `on a, b` (targetless) or `a, b → child` (into itself). */
interface Annotation {
  destination: string | undefined;
  labels: string[];
}

/** Renders `machine` as Mermaid text (without the surrounding code fence). */
export function toMermaid(machine: AnyStateMachine): string {
  const ids = assignIds(machine.root);
  const edges: Edge[] = [];
  const notes = new Map<AnyStateNode, string[]>();
  for (const node of walk(machine.root)) collectTransitions(node, edges, notes);

  const lines = ['stateDiagram-v2'];
  renderState(machine.root, 1, ids, edges, notes, lines);
  for (const edge of edges) {
    if (sameBlock(edge)) continue;
    lines.push(`${INDENT}${edgeLine(edge, ids)}`);
  }
  return lines.join('\n') + '\n';
}

/** Every state node, parents before children, in definition order. */
function* walk(node: AnyStateNode): Generator<AnyStateNode> {
  yield node;
  for (const child of children(node)) yield* walk(child);
}

const children = (node: AnyStateNode): AnyStateNode[] => Object.values(node.states) as AnyStateNode[];

function assignIds(root: AnyStateNode): Map<AnyStateNode, string> {
  const ids = new Map<AnyStateNode, string>();
  const taken = new Set<string>();
  for (const node of walk(root)) {
    const base = [root.machine.id, ...node.path].map(mermaidId).join('_');
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
    taken.add(id);
    ids.set(node, id);
  }
  return ids;
}

const mermaidId = (text: string): string => text.replace(/[^A-Za-z0-9]/g, '_');

/** Mermaid ends a statement at `;` and reads `#…;` as an entity; labels avoid both, and quotes. */
const labelText = (text: string): string => text.replace(/[;#"]/g, ' ').replace(/\s+/g, ' ').trim();

function collectTransitions(node: AnyStateNode, edges: Edge[], notes: Map<AnyStateNode, string[]>): void {
  const annotations: Annotation[] = [];
  const annotate = (destination: string | undefined, label: string): void => {
    const same = annotations.find((annotation) => annotation.destination === destination);
    if (same) same.labels.push(label);
    else annotations.push({ destination, labels: [label] });
  };
  for (const { transition, label: trigger } of labelledTransitions(node)) {
    const label = labelText(trigger);
    const targets = transition.target ?? [];
    if (targets.length === 0) annotate(undefined, label);
    for (const target of targets as AnyStateNode[]) {
      const intoSelf = isWithin(target, node) && (node.type !== 'atomic' || target !== node);
      if (intoSelf) annotate(target === node ? `${node.key} (re-enter)` : target.path.slice(node.path.length).join('.'), label);
      else addEdge(edges, { source: node, target, labels: [label] });
    }
  }
  const lines = node.invoke.map((invoke) => `invoke ${invokeName(invoke.src, invoke.id)}`);
  for (const { destination, labels } of annotations) {
    lines.push(destination === undefined ? `on ${labels.join(', ')}` : `${labels.join(', ')} → ${destination}`);
  }
  if (lines.length > 0) notes.set(node, lines);
}

function addEdge(edges: Edge[], edge: Edge): void {
  const parallel = edges.find((known) => known.source === edge.source && known.target === edge.target);
  if (parallel) parallel.labels.push(...edge.labels);
  else edges.push(edge);
}

const edgeLine = (edge: Edge, ids: Map<AnyStateNode, string>): string =>
  `${ids.get(edge.source)} --> ${ids.get(edge.target)} : ${edge.labels.join('<br/>')}`;

/** Whether `node` is `ancestor` or one of its descendants. */
function isWithin(node: AnyStateNode, ancestor: AnyStateNode): boolean {
  for (let at: AnyStateNode | undefined = node; at; at = at.parent) if (at === ancestor) return true;
  return false;
}

/** Both ends are direct children of one compound state (parallel regions are separate blocks). */
const sameBlock = (edge: Edge): boolean =>
  edge.source.parent?.type === 'compound' && edge.source.parent === edge.target.parent;

/**
 * Every transition defined on `node` (event transitions, then `always`), each with its label as the diagrams
 * write it: `ack [honored]`, `after(ackTimeout)`, `done(listen)`; the inspector page shows the same words.
 */
export function labelledTransitions(node: AnyStateNode): { transition: AnyTransitionDefinition; label: string }[] {
  const transitions: AnyTransitionDefinition[] = [...node.transitions.values()].flat();
  transitions.push(...(node.always ?? []));
  const guardedEvents = new Set<string>();
  return transitions.map((transition) => {
    const trigger = triggerOf(node, transition);
    // An unguarded fallback after guarded candidates of the same event is their `else`: one label per guarded transition.
    const guard = trigger.guard ?? (guardedEvents.has(trigger.event) ? 'else' : undefined);
    if (trigger.guard) guardedEvents.add(trigger.event);
    return { transition, label: guard ? `${trigger.event} [${guard}]` : trigger.event };
  });
}

function triggerOf(node: AnyStateNode, transition: AnyTransitionDefinition): Trigger {
  const guard = transition.guard === undefined ? undefined : guardName(transition.guard);
  const eventType = String(transition.eventType);
  const delayed = node.after.find((after) => after.eventType === eventType);
  if (delayed) return { event: `after(${typeof delayed.delay === 'number' ? `${delayed.delay}ms` : delayed.delay})`, guard };
  if (eventType === '') return { event: 'always', guard };
  for (const [prefix, word] of [['xstate.done.actor.', 'done'], ['xstate.error.actor.', 'error']] as const) {
    if (!eventType.startsWith(prefix)) continue;
    const id = eventType.slice(prefix.length);
    const invoke = node.invoke.find((candidate) => candidate.id === id);
    return { event: `${word}(${invoke ? invokeName(invoke.src, invoke.id) : id})`, guard };
  }
  if (eventType.startsWith('xstate.done.state.')) return { event: 'done', guard };
  return { event: eventType, guard };
}

/** Generated invoke ids (`0.cache.listening`) say nothing; the actor's name does. */
function invokeName(src: unknown, id: string): string {
  const generated = /^\d+\./.test(id);
  if (typeof src === 'string') return generated || id === src ? src : `${src} as ${id}`;
  return generated ? 'inline actor' : id;
}

/** Names a guard: `hasOverlap`, `not(hasOverlap)`, `and(a, not(b))`; inline functions by their name. */
export function guardName(guard: unknown): string {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const composite = guard as { name: string; guards?: unknown[] };
    if (Array.isArray(composite.guards)) return `${composite.name}(${composite.guards.map(guardName).join(', ')})`;
    return composite.name || 'inline guard';
  }
  if (typeof guard === 'object' && guard !== null && 'type' in guard) return String(guard.type);
  return 'guard';
}

function renderState(
  node: AnyStateNode,
  depth: number,
  ids: Map<AnyStateNode, string>,
  edges: Edge[],
  notes: Map<AnyStateNode, string[]>,
  lines: string[],
): void {
  const pad = INDENT.repeat(depth);
  const id = ids.get(node) as string;
  const name = labelText(node.parent ? node.key : node.machine.id);
  const annotations = (notes.get(node) ?? []).map(labelText);
  const kids = children(node);
  if (kids.length === 0) {
    lines.push(`${pad}state "${name}" as ${id}`);
    for (const annotation of annotations) lines.push(`${pad}${id} : ${annotation}`);
    return;
  }
  const title = [node.type === 'parallel' ? `${name} (parallel)` : name, ...annotations].join(' · ');
  lines.push(`${pad}state "${title}" as ${id} {`);
  const inner = pad + INDENT;
  if (node.type === 'compound') lines.push(`${inner}[*] --> ${ids.get(node.initial.target[0] as AnyStateNode)}`);
  kids.forEach((child, index) => {
    if (node.type === 'parallel' && index > 0) lines.push(`${inner}--`);
    renderState(child, depth + 1, ids, edges, notes, lines);
    if (child.type === 'final') lines.push(`${inner}${ids.get(child)} --> [*]`);
  });
  for (const edge of edges) {
    if (edge.source.parent === node && sameBlock(edge)) {
      lines.push(`${inner}${edgeLine(edge, ids)}`);
    }
  }
  lines.push(`${pad}}`);
}
