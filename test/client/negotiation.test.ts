/** How a `server/discover` probe's outcome decides the era, on stdio and over HTTP alike. */
import { describe, expect, it } from 'vitest';
import { judgeProbe } from '../../src/client/negotiation.ts';
import { HttpStatusError, RequestTimeoutError, RpcError } from '../../src/protocol/errors.ts';

const rpc = (code: number, data?: unknown) => new RpcError({ code, message: 'x', ...(data ? { data } : {}) }, 'server/discover');
const http = (status: number, body?: { code: number; data?: unknown }) =>
  new HttpStatusError(status, 'status', body ? { message: 'x', ...body } : undefined);

describe('judgeProbe', () => {
  it('a DiscoverResult listing 2026-07-28 is modern', () => {
    expect(judgeProbe({ result: { supportedVersions: ['2026-07-28'] } }, 'stdio').kind).toBe('modern');
  });

  it.each([
    ['method not found on stdio', rpc(-32601), 'stdio'],
    ['invalid params on stdio', rpc(-32602), 'stdio'],
    ['an unsupported version without a mutual one', rpc(-32022, { supported: ['2027-01-01'] }), 'stdio'],
    ['the same in an HTTP 400 body', http(400, { code: -32022, data: { supported: ['2027-01-01'] } }), 'http'],
    ['SDK 1.x "not initialized" in a 400 body', http(400, { code: -32000 }), 'http'],
    ['a bare 404', http(404), 'http'],
    ['a bare 405', http(405), 'http'],
    ['no answer on stdio', new RequestTimeoutError('server/discover', 2_000), 'stdio'],
  ] as const)('%s is evidence of a legacy server', (_name, error, transport) => {
    expect(judgeProbe({ error }, transport).kind).toBe('legacy');
  });

  it.each([
    ['a 401', http(401), 'http'],
    ['a 403 with a body', http(403, { code: -32600 }), 'http'],
    ['a 500', http(500), 'http'],
    ['no answer over HTTP', new RequestTimeoutError('server/discover', 2_000), 'http'],
    ['a network failure', new TypeError('fetch failed'), 'http'],
    ['a header mismatch on stdio', rpc(-32020), 'stdio'],
    ['a header mismatch over HTTP', http(400, { code: -32020 }), 'http'],
    ['an unsupported version that lists 2026-07-28 on stdio', rpc(-32022, { supported: ['2026-07-28'] }), 'stdio'],
    ['the same over HTTP', http(400, { code: -32022, data: { supported: ['2026-07-28'] } }), 'http'],
  ] as const)('%s is an error, not evidence', (_name, error, transport) => {
    expect(judgeProbe({ error }, transport).kind).toBe('error');
  });
});
