import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeFilter, interestKeys, type Interest } from '../../src/cache/interest.ts';
import { validateFilter } from '../../src/protocol/filter.ts';
import { computeFilter as publicComputeFilter, createChangeCache, createClient, InvalidInterestError, stdioTransport, validateInterest } from '../../src/index.ts';
import type { ServerCapabilities } from '../../src/protocol/versions.ts';

const everything: ServerCapabilities = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
};
const fullInterest: Interest = { tools: true, prompts: true, resources: true, uris: ['file:///a.txt', 'file:///b.txt'] };

describe('computeFilter', () => {
  it('asks for everything the application wants when the server offers everything', () => {
    expect(computeFilter(fullInterest, everything)).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['file:///a.txt', 'file:///b.txt'],
    });
  });

  it('drops what the server does not advertise', () => {
    const capabilities: ServerCapabilities = { tools: { listChanged: true }, prompts: {}, resources: { subscribe: false, listChanged: true } };
    expect(computeFilter(fullInterest, capabilities)).toEqual({ toolsListChanged: true, resourcesListChanged: true });
  });

  it('drops what the application does not consume, even when advertised', () => {
    expect(computeFilter({ prompts: true }, everything)).toEqual({ promptsListChanged: true });
    expect(computeFilter({ uris: ['file:///a.txt'] }, everything)).toEqual({ resourceSubscriptions: ['file:///a.txt'] });
  });

  it('subscribes URIs only with resources.subscribe, independently of resources.listChanged', () => {
    expect(computeFilter({ uris: ['file:///a.txt'] }, { resources: { subscribe: true } })).toEqual({ resourceSubscriptions: ['file:///a.txt'] });
    expect(computeFilter({ uris: ['file:///a.txt'] }, { resources: { listChanged: true } })).toBeNull();
  });

  it('is null when nothing overlaps, and invents no types to fill the gap', () => {
    expect(computeFilter(fullInterest, {})).toBeNull();
    expect(computeFilter(fullInterest, { logging: {}, completions: {} })).toBeNull();
    expect(computeFilter({}, everything)).toBeNull();
    expect(computeFilter({ uris: [] }, everything)).toBeNull();
  });

  it('counts only capabilities advertised as exactly true', () => {
    const odd = { tools: { listChanged: 'yes' }, prompts: { listChanged: 1 } } as unknown as ServerCapabilities;
    expect(computeFilter(fullInterest, odd)).toBeNull();
  });

  it('names each URI once', () => {
    expect(computeFilter({ uris: ['file:///a.txt', 'file:///a.txt'] }, everything)).toEqual({ resourceSubscriptions: ['file:///a.txt'] });
  });

  it('leaves the interest set untouched, so a later negotiation starts from it again', () => {
    const interest: Interest = { tools: true, uris: ['file:///a.txt'] };
    const before = structuredClone(interest);
    expect(computeFilter(interest, {})).toBeNull();
    expect(interest).toEqual(before);
    expect(computeFilter(interest, everything)).toEqual({ toolsListChanged: true, resourceSubscriptions: ['file:///a.txt'] });
  });

  it('never selects more than interest or capabilities allow, and what it selects is a valid filter', () => {
    const flag = fc.option(fc.boolean(), { nil: undefined });
    const interestArb = fc.record(
      { tools: flag, prompts: flag, resources: flag, uris: fc.option(fc.array(fc.constantFrom('file:///a', 'file:///b', 'test://c')), { nil: undefined }) },
      { requiredKeys: [] },
    );
    const capsArb = fc.record(
      {
        tools: fc.record({ listChanged: flag }, { requiredKeys: [] }),
        prompts: fc.record({ listChanged: flag }, { requiredKeys: [] }),
        resources: fc.record({ listChanged: flag, subscribe: flag }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(interestArb, capsArb, (interest, capabilities) => {
        const filter = computeFilter(interest as Interest, capabilities as ServerCapabilities);
        if (filter === null) return;
        expect(validateFilter(filter, { allowTaskIds: false })).toEqual(filter);
        if (filter.toolsListChanged) expect(interest.tools && capabilities.tools?.listChanged).toBe(true);
        if (filter.promptsListChanged) expect(interest.prompts && capabilities.prompts?.listChanged).toBe(true);
        if (filter.resourcesListChanged) expect(interest.resources && capabilities.resources?.listChanged).toBe(true);
        if (filter.resourceSubscriptions) expect(capabilities.resources?.subscribe).toBe(true);
        for (const uri of filter.resourceSubscriptions ?? []) expect(interest.uris).toContain(uri);
        expect(filter.taskIds).toBeUndefined();
      }),
    );
  });
});

describe('interestKeys', () => {
  it('names each list the interest reads, then each URI once, in the order given', () => {
    expect(interestKeys({ tools: true, resources: true, uris: ['x://b', 'x://a', 'x://b'] })).toEqual(['tools', 'resources', 'resource:x://b', 'resource:x://a']);
    expect(interestKeys({ prompts: false })).toEqual([]);
  });
});

describe('the public API computes the filter without opening anything', () => {
  it('cache.filterFor and computeFilter answer for any capabilities, before any connection', async () => {
    const client = createClient({ transport: stdioTransport({ command: process.execPath, args: ['-e', ''] }) });
    const cache = createChangeCache(client, { interest: { tools: true, uris: ['file:///a'] } });
    expect(cache.filterFor({ tools: { listChanged: true }, resources: { subscribe: true } })).toEqual({ toolsListChanged: true, resourceSubscriptions: ['file:///a'] });
    expect(cache.filterFor({ prompts: { listChanged: true } })).toBeNull();
    expect(publicComputeFilter({ tools: true }, { tools: { listChanged: true } })).toEqual({ toolsListChanged: true });
    // Nothing was connected or opened to answer.
    expect(client.state).toBe('idle');
    expect(cache.filter).toBeNull();
    await cache.close();
    await client.shutdown('test over');
  });
});

describe('validateInterest: an interest set from configuration', () => {
  it('accepts the known keys and copies them; an empty one is valid (it overlaps no server)', () => {
    const raw = JSON.parse('{"tools": true, "resources": false, "uris": ["file:///a.txt"]}') as unknown;
    const interest = validateInterest(raw);
    expect(interest).toEqual({ tools: true, resources: false, uris: ['file:///a.txt'] });
    expect(validateInterest({})).toEqual({});
  });

  it.each([
    ['not_an_object', ['tools']],
    ['wrong_type', { tools: 'yes' }],
    ['wrong_type', { uris: 'file:///a' }],
    ['malformed_uri', { uris: ['not a uri'] }],
    ['unknown_key', { tool: true }],
  ])('refuses %s: %j, and createChangeCache refuses it before opening anything', (problem, raw) => {
    expect(() => validateInterest(raw)).toThrow(InvalidInterestError);
    expect(() => validateInterest(raw)).toThrow(expect.objectContaining({ problem }));
    const client = createClient({ transport: stdioTransport({ command: process.execPath, args: ['-e', ''] }) });
    expect(() => createChangeCache(client, { interest: raw as Interest })).toThrow(InvalidInterestError);
    expect(client.state).toBe('idle');
  });
});
