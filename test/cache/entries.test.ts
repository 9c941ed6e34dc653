import { describe, expect, it } from 'vitest';
import { entriesChangedBy, entriesCoveredBy } from '../../src/cache/entries.ts';

describe('entriesChangedBy', () => {
  it('maps a list change to that list only', () => {
    expect(entriesChangedBy('notifications/tools/list_changed', undefined)).toEqual(['tools']);
    expect(entriesChangedBy('notifications/prompts/list_changed', {})).toEqual(['prompts']);
    expect(entriesChangedBy('notifications/resources/list_changed', {})).toEqual(['resources']);
  });

  it('maps resources/updated to that URI’s contents only, not the resources list', () => {
    expect(entriesChangedBy('notifications/resources/updated', { uri: 'file:///a.txt' })).toEqual(['resource:file:///a.txt']);
  });

  it('touches nothing for notifications the cache does not hold or that name no URI', () => {
    expect(entriesChangedBy('notifications/message', { level: 'info' })).toEqual([]);
    expect(entriesChangedBy('notifications/resources/updated', {})).toEqual([]);
    expect(entriesChangedBy('notifications/resources/updated', { uri: 42 })).toEqual([]);
  });
});

describe('entriesCoveredBy', () => {
  it('lists every entry a filter keeps current', () => {
    expect(
      entriesCoveredBy({ toolsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['file:///a.txt', 'test://b'] }),
    ).toEqual(['tools', 'resources', 'resource:file:///a.txt', 'resource:test://b']);
    expect(entriesCoveredBy({ promptsListChanged: true })).toEqual(['prompts']);
  });

  it('covers nothing a filter did not select', () => {
    expect(entriesCoveredBy({ toolsListChanged: false, taskIds: ['t1'] })).toEqual([]);
  });
});
