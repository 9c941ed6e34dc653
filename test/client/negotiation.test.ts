/** What an answer to the `server/discover` probe says, on stdio and over HTTP alike (silence is the negotiation machine's to judge). */
import { describe, expect, it } from 'vitest';
import { judgeProbe } from '../../src/client/negotiation.ts';
import { HttpStatusError, RpcError } from '../../src/protocol/errors.ts';
import { AuthError } from '../../src/transport/auth/errors.ts';

const rpc = (code: number, data?: unknown) => new RpcError({ code, message: 'x', ...(data ? { data } : {}) }, 'server/discover');
const http = (status: number, body?: { code: number; data?: unknown }) =>
  new HttpStatusError(status, 'status', body ? { message: 'x', ...body } : undefined);

describe('judgeProbe', () => {
  it('a DiscoverResult listing 2026-07-28 is modern', () => {
    expect(judgeProbe({ result: { supportedVersions: ['2026-07-28'] } }).type).toBe('discover.modern');
  });

  it('a DiscoverResult listing only other versions is legacy evidence', () => {
    expect(judgeProbe({ result: { supportedVersions: ['2027-01-01'] } })).toMatchObject({ type: 'discover.legacy', evidence: expect.stringContaining('2027-01-01') });
  });

  it.each([
    ['method not found on stdio', rpc(-32601)],
    ['invalid params on stdio', rpc(-32602)],
    ['an unsupported version without a mutual one', rpc(-32022, { supported: ['2027-01-01'] })],
    ['the same in an HTTP 400 body', http(400, { code: -32022, data: { supported: ['2027-01-01'] } })],
    ['SDK 1.x "not initialized" in a 400 body', http(400, { code: -32000 })],
    ['a bare 404', http(404)],
    ['a bare 405', http(405)],
  ] as const)('%s is evidence of a legacy server', (_name, error) => {
    expect(judgeProbe({ error }).type).toBe('discover.legacy');
  });

  it.each([
    ['a 401', http(401)],
    ['a 403 with a body', http(403, { code: -32600 })],
    ['a 500', http(500)],
    ['a network failure', new TypeError('fetch failed')],
    ['a header mismatch on stdio', rpc(-32020)],
    ['a header mismatch over HTTP', http(400, { code: -32020 })],
  ] as const)('%s is an error, not evidence', (_name, error) => {
    expect(judgeProbe({ error }).type).toBe('discover.failed');
  });

  it('an authorization failure ends the negotiation with the AuthError itself, so connect() rejects with it', () => {
    const error = new AuthError('unauthorized', 'HTTP 401');
    expect(judgeProbe({ error })).toEqual({ type: 'discover.failed', error });
  });

  it.each([
    ['an unsupported version that lists 2026-07-28 on stdio', rpc(-32022, { supported: ['2026-07-28'] })],
    ['the same over HTTP', http(400, { code: -32022, data: { supported: ['2027-01-01', '2026-07-28'] } })],
  ] as const)('%s asks for a retry in 2026-07-28', (_name, error) => {
    expect(judgeProbe({ error })).toMatchObject({ type: 'discover.versionRefused', retryWith: '2026-07-28' });
  });
});
