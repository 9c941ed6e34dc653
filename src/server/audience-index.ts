/**
 * Who receives which change event: listen streams and legacy sessions are
 * indexed by list kind and by resource URI, so fanning one change out costs
 * time in proportion to the receivers that match it, not to everyone open.
 */
import type { ChangeEvent, ConcreteChange } from './bus.ts';

export type ListKind = 'tools' | 'prompts' | 'resources';

export interface Audience {
  /** `uriJson` is the event's URI already JSON-encoded, shared by every receiver. */
  receive(event: ConcreteChange, uriJson: string | undefined): void;
}

export class AudienceIndex {
  private readonly byKind: Record<ListKind, Set<Audience>> = {
    tools: new Set(),
    prompts: new Set(),
    resources: new Set(),
  };
  private readonly byUri = new Map<string, Set<Audience>>();

  addKind(kind: ListKind, audience: Audience): void {
    this.byKind[kind].add(audience);
  }

  removeKind(kind: ListKind, audience: Audience): void {
    this.byKind[kind].delete(audience);
  }

  addUri(uri: string, audience: Audience): void {
    let set = this.byUri.get(uri);
    if (!set) this.byUri.set(uri, (set = new Set()));
    set.add(audience);
  }

  removeUri(uri: string, audience: Audience): void {
    const set = this.byUri.get(uri);
    if (!set) return;
    set.delete(audience);
    if (set.size === 0) this.byUri.delete(uri);
  }

  fanOut(event: ChangeEvent): void {
    if (event.type === 'everything_changed') {
      for (const type of Object.keys(LIST_CHANGED_METHOD) as Array<keyof typeof LIST_CHANGED_METHOD>) this.fanOut({ type });
      for (const uri of [...this.byUri.keys()]) this.fanOut({ type: 'resource_updated', uri });
      return;
    }
    if (event.type === 'resource_updated') {
      const set = this.byUri.get(event.uri);
      if (!set) return;
      const uriJson = JSON.stringify(event.uri);
      // Copy: a receiver that overflows removes itself while we iterate.
      for (const audience of [...set]) audience.receive(event, uriJson);
      return;
    }
    const kind: ListKind =
      event.type === 'tools_list_changed' ? 'tools' : event.type === 'prompts_list_changed' ? 'prompts' : 'resources';
    for (const audience of [...this.byKind[kind]]) audience.receive(event, undefined);
  }
}

export const LIST_CHANGED_METHOD: Record<Exclude<ConcreteChange['type'], 'resource_updated'>, string> = {
  tools_list_changed: 'notifications/tools/list_changed',
  prompts_list_changed: 'notifications/prompts/list_changed',
  resources_list_changed: 'notifications/resources/list_changed',
};
