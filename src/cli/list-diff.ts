/**
 * What changed between two fetches of one list: items are matched by their
 * identity (`name` for tools and prompts, `uri` for resources) and an item
 * counts as changed when anything else about it differs.
 */
import type { CachedList } from '../cache/entries.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';

export interface ListDiff {
  list: CachedList;
  added: string[];
  removed: string[];
  changed: string[];
  /** Items in the new list. */
  count: number;
}

const IDENTITY: Record<CachedList, string> = { tools: 'name', prompts: 'name', resources: 'uri' };

/** The item's identity; an item without one is keyed by its own content so it still shows up as added or removed. */
export const identityOf = (list: CachedList, item: JsonObject): string => {
  const value = item[IDENTITY[list]];
  return typeof value === 'string' ? value : canonicalJson(item);
};

/** JSON with object keys sorted, so two equal items compare equal whatever order the server wrote them in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function diffList(list: CachedList, previous: readonly JsonObject[], next: readonly JsonObject[]): ListDiff {
  const before = new Map(previous.map((item) => [identityOf(list, item), canonicalJson(item)]));
  const after = new Map(next.map((item) => [identityOf(list, item), canonicalJson(item)]));
  const added: string[] = [];
  const changed: string[] = [];
  for (const [key, body] of after) {
    const old = before.get(key);
    if (old === undefined) added.push(key);
    else if (old !== body) changed.push(key);
  }
  const removed = [...before.keys()].filter((key) => !after.has(key));
  return { list, added, removed, changed, count: next.length };
}

export const isEmptyDiff = (diff: ListDiff): boolean =>
  diff.added.length === 0 && diff.removed.length === 0 && diff.changed.length === 0;
