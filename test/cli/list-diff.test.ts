import { describe, expect, it } from 'vitest';
import { canonicalJson, diffList, isEmptyDiff } from '../../src/cli/list-diff.ts';

describe('diffList', () => {
  it('names tools added, removed and changed, matched by name', () => {
    const before = [{ name: 'a', description: 'A' }, { name: 'b', description: 'B' }, { name: 'c' }];
    const after = [{ name: 'a', description: 'A' }, { name: 'c', description: 'now described' }, { name: 'd' }];
    expect(diffList('tools', before, after)).toEqual({ list: 'tools', added: ['d'], removed: ['b'], changed: ['c'], count: 3 });
  });

  it('matches resources by uri, not by name', () => {
    const before = [{ uri: 'x://1', name: 'one' }];
    const after = [{ uri: 'x://1', name: 'renamed' }, { uri: 'x://2', name: 'one' }];
    expect(diffList('resources', before, after)).toMatchObject({ added: ['x://2'], removed: [], changed: ['x://1'] });
  });

  it('ignores key order: the same item written differently is unchanged', () => {
    const before = [{ name: 'a', inputSchema: { type: 'object', properties: { x: { type: 'string' } } } }];
    const after = [{ inputSchema: { properties: { x: { type: 'string' } }, type: 'object' }, name: 'a' }];
    expect(isEmptyDiff(diffList('tools', before, after))).toBe(true);
  });

  it('keeps items without an identity visible as added and removed', () => {
    expect(diffList('prompts', [{ title: 'old' }], [{ title: 'new' }])).toMatchObject({ added: ['{"title":"new"}'], removed: ['{"title":"old"}'] });
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: undefined, e: null })).toBe('{"b":[{"c":2,"d":1}],"e":null}');
  });
});
