/**
 * Sealing the modern `requestState` (AES-256-GCM), and the round limits of an
 * input-required request.
 */
import { describe, expect, it } from 'vitest';
import { InvalidRequestStateError, LimitExceededError } from '../../src/server/errors.ts';
import { InputRequiredSignal, InputRound } from '../../src/server/input-round.ts';
import { newRequestStateKey, RequestStateSealer, type RequestStateContents } from '../../src/server/request-state.ts';

const contents: RequestStateContents = {
  target: 'tools/call book',
  round: 1,
  answers: { card: { action: 'accept', content: { number: '4111-1111-1111-1111' } } },
  expiresAt: 10_000,
};

const refusal = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidRequestStateError) return error.reason;
    throw error;
  }
  return undefined;
};

describe('RequestStateSealer', () => {
  const key = newRequestStateKey();
  const sealer = new RequestStateSealer(key, () => 5_000);

  it('opens what it sealed, for the request it was sealed for', () => {
    expect(sealer.open(sealer.seal(contents), 'tools/call book')).toEqual(contents);
  });

  it('carries nothing in clear', () => {
    const state = sealer.seal(contents);
    expect(Buffer.from(state, 'base64url').toString('latin1')).not.toContain('4111');
    expect(state).not.toContain(Buffer.from('4111-1111').toString('base64url').slice(0, 8));
  });

  it('refuses a state with any byte changed, appended to, cut short, or sealed under another key', () => {
    const state = sealer.seal(contents);
    const raw = Buffer.from(state, 'base64url');
    for (let i = 0; i < raw.length; i += 7) {
      const changed = Buffer.from(raw);
      changed[i] = changed[i]! ^ 1;
      expect(refusal(() => sealer.open(changed.toString('base64url'), 'tools/call book'))).toBe('tampered');
    }
    expect(refusal(() => sealer.open(`${state}-TAMPERED`, 'tools/call book'))).toBe('tampered');
    expect(refusal(() => sealer.open(state.slice(0, 30), 'tools/call book'))).toBe('tampered');
    expect(refusal(() => new RequestStateSealer(newRequestStateKey(), () => 5_000).open(state, 'tools/call book'))).toBe('tampered');
  });

  it('refuses a state minted for another request, and one past its expiry', () => {
    const state = sealer.seal(contents);
    expect(refusal(() => sealer.open(state, 'tools/call other'))).toBe('other_request');
    expect(refusal(() => new RequestStateSealer(key, () => 10_001).open(state, 'tools/call book'))).toBe('expired');
  });

  it('takes only a 32-byte key', () => {
    expect(() => new RequestStateSealer(new Uint8Array(16))).toThrow(RangeError);
  });
});

describe('InputRound', () => {
  const sealer = new RequestStateSealer(newRequestStateKey(), () => 0);
  const limits = { maxInputRounds: 2, maxRequestStateBytes: 65_536, requestStateTtlMs: 1_000 };
  const form = { message: 'Name?', requestedSchema: { type: 'object', properties: {} } };

  /** Runs one attempt that asks `keys` in turn; returns the input-required result, or undefined when all were answered. */
  async function attempt(params: Record<string, unknown>, keys: string[], roundLimits = limits) {
    const round = new InputRound(sealer, roundLimits, () => 0, 'tools/call', { name: 'ask', ...params });
    try {
      for (const key of keys) await round.ask('elicitation/create', form, key);
    } catch (error) {
      expect(error).toBeInstanceOf(InputRequiredSignal);
    }
    return round.incomplete ? round.inputRequired() : undefined;
  }

  it('asks again, on the same key, when an answer has the wrong shape', async () => {
    const result = await attempt({ inputResponses: { a: { action: 'maybe' } } }, ['a']);
    expect(Object.keys(result!.inputRequests as object)).toEqual(['a']);
  });

  it('refuses a round past maxInputRounds', async () => {
    const accept = { action: 'accept', content: {} };
    const first = await attempt({}, ['a', 'b', 'c']);
    const second = await attempt({ requestState: first!.requestState, inputResponses: { a: accept } }, ['a', 'b', 'c']);
    await expect(attempt({ requestState: second!.requestState, inputResponses: { b: accept } }, ['a', 'b', 'c']))
      .rejects.toMatchObject({ reason: 'too_many_rounds' });
  });

  it('fails with LimitExceededError when the state would exceed maxRequestStateBytes', async () => {
    const big = { action: 'accept', content: { text: 'x'.repeat(2_000) } };
    await expect(attempt({ inputResponses: { a: big } }, ['a', 'b'], { ...limits, maxRequestStateBytes: 1_000 }))
      .rejects.toBeInstanceOf(LimitExceededError);
  });

  it('refuses inputResponses that are not an object of objects', () => {
    expect(() => new InputRound(sealer, limits, () => 0, 'tools/call', { name: 'ask', inputResponses: null })).toThrow(/inputResponses must be an object/);
    expect(() => new InputRound(sealer, limits, () => 0, 'tools/call', { name: 'ask', inputResponses: { a: 1 } })).toThrow(/inputResponses.a/);
  });
});
