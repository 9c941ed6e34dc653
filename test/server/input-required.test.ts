/**
 * The return style of asking (inputRequired) and the handler's own state:
 * how they are sealed into the modern requestState and resumed on the retry,
 * checked on one attempt at a time (no transport).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/protocol/jsonrpc.ts';
import { LimitExceededError } from '../../src/server/errors.ts';
import { inputRequired, InvalidHandlerStateError, InvalidInputRequestError, stepsInProcess, type HandlerCall } from '../../src/server/input-required.ts';
import type { JsonValue } from '../../src/protocol/mcp-types.ts';
import { InputRound } from '../../src/server/input-round.ts';
import { callHandler, createRequestContext, type RequestContext } from '../../src/server/request-context.ts';
import { newRequestStateKey, RequestStateSealer, type RequestStateContents } from '../../src/server/request-state.ts';

const sealer = new RequestStateSealer(newRequestStateKey(), () => 0);
const limits = { maxInputRounds: 4, maxRequestStateBytes: 65_536, requestStateTtlMs: 1_000 };
const ask = (message: string) => ({
  method: 'elicitation/create' as const,
  params: { message, requestedSchema: { type: 'object' as const, properties: { text: { type: 'string' } } } },
});
const accept = (text: string): JsonObject => ({ action: 'accept', content: { text } });
const textIn = (context: RequestContext, key: string): string => String((context.inputResponses[key]?.content as { text?: string } | undefined)?.text);

/** One modern attempt of `tools/call ask`: the handler's result, or the input-required result it ended with. */
async function attempt(params: Record<string, unknown>, handler: HandlerCall<JsonObject>, roundLimits = limits): Promise<JsonObject> {
  const round = new InputRound(sealer, roundLimits, () => 0, 'tools/call', { name: 'ask', ...params });
  const context = createRequestContext({
    era: 'modern', requestId: 1, signal: new AbortController().signal, clientCapabilities: { elicitation: {} }, meta: {},
    progressToken: undefined, logThreshold: undefined, channel: { notify: async () => {} },
    asker: round, inputRound: round.round, steps: round,
  });
  try {
    const result = await callHandler(context, handler);
    if (!round.incomplete) return result;
  } catch (error) {
    if (!round.incomplete) throw error;
  }
  return round.inputRequired();
}

/** A handler that returns `confirm` twice (the same key in both rounds), carrying the first answer in its state. */
const twice: HandlerCall<JsonObject> = (context) => {
  if (context.state === undefined) return inputRequired({ inputRequests: { confirm: ask('first?') }, state: { step: 1 } });
  const state = context.state as { step: number; first?: string };
  if (state.step === 1) return inputRequired({ inputRequests: { confirm: ask('second?') }, state: { step: 2, first: textIn(context, 'confirm') } });
  return { text: `${state.first} then ${textIn(context, 'confirm')} in round ${context.inputRound}` };
};

describe('sealing the handler state', () => {
  const contents: RequestStateContents = {
    target: 'tools/call ask', round: 1, answers: {}, expiresAt: 10,
    state: { secret: 'hunter2-hunter2' },
    step: { requests: { confirm: ask('first?') }, answers: { confirm: accept('yes') } },
  };

  it('opens the state and the returned step as sealed, and carries neither in clear', () => {
    const sealed = sealer.seal(contents);
    expect(sealer.open(sealed, 'tools/call ask')).toEqual(contents);
    expect(Buffer.from(sealed, 'base64url').toString('latin1')).not.toContain('hunter2');
    expect(Buffer.from(sealed, 'base64url').toString('latin1')).not.toContain('first?');
  });

  it('refuses a state with a byte of the handler state changed', () => {
    const raw = Buffer.from(sealer.seal(contents), 'base64url');
    raw[raw.length - 5] = raw[raw.length - 5]! ^ 1;
    expect(() => sealer.open(raw.toString('base64url'), 'tools/call ask')).toThrow(expect.objectContaining({ reason: 'tampered' }));
  });

  it('counts the handler state toward maxRequestStateBytes', async () => {
    const big: HandlerCall<JsonObject> = () => inputRequired({ inputRequests: { confirm: ask('?') }, state: 'x'.repeat(2_000) });
    await expect(attempt({}, big, { ...limits, maxRequestStateBytes: 1_000 })).rejects.toBeInstanceOf(LimitExceededError);
  });
});

describe('returned requests in the modern era', () => {
  it('answers round by round, the same key meaning each round its own question', async () => {
    const first = await attempt({}, twice);
    expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: { params: { message: 'first?' } } } });
    const second = await attempt({ requestState: first.requestState, inputResponses: { confirm: accept('A') } }, twice);
    // The retry's answer to `confirm` went to the first question, never to the second.
    expect(second).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: { params: { message: 'second?' } } } });
    expect(await attempt({ requestState: second.requestState, inputResponses: { confirm: accept('B') } }, twice)).toEqual({ text: 'A then B in round 2' });
  });

  it('asks again for a returned request answered with the wrong shape, keeping the state', async () => {
    const first = await attempt({}, twice);
    const again = await attempt({ requestState: first.requestState, inputResponses: { confirm: { action: 'maybe' } } }, twice);
    expect(again).toMatchObject({ inputRequests: { confirm: { params: { message: 'first?' } } } });
    const second = await attempt({ requestState: again.requestState, inputResponses: { confirm: accept('C') } }, twice);
    expect(second).toMatchObject({ inputRequests: { confirm: { params: { message: 'second?' } } } });
  });

  it('starts the await-style answers afresh after a returned step, so auto keys do not collide', async () => {
    const mixed: HandlerCall<JsonObject> = async (context) => {
      if (context.state === undefined) return inputRequired({ inputRequests: { 'elicitation-1': ask('returned?') }, state: 'returned' });
      const awaited = await context.elicit(ask('awaited?').params); // auto key elicitation-1 again
      return { returned: textIn(context, 'elicitation-1'), awaited: String(awaited.content?.text) };
    };
    const first = await attempt({}, mixed);
    const second = await attempt({ requestState: first.requestState, inputResponses: { 'elicitation-1': accept('R') } }, mixed);
    expect(second).toMatchObject({ inputRequests: { 'elicitation-1': { params: { message: 'awaited?' } } } });
    const done = await attempt({ requestState: second.requestState, inputResponses: { 'elicitation-1': accept('W') } }, mixed);
    expect(done).toEqual({ returned: 'R', awaited: 'W' });
  });

  it('gives an awaiting handler the state it kept before its ask went unanswered', async () => {
    const keeping: HandlerCall<JsonObject> = async (context) => {
      context.keep({ seen: [...((context.state as { seen?: JsonValue[] } | undefined)?.seen ?? []), context.inputRound] });
      await context.elicit(ask('ok?').params, { key: 'ok' });
      return { state: context.state as JsonObject };
    };
    const first = await attempt({}, keeping);
    expect(await attempt({ requestState: first.requestState, inputResponses: { ok: accept('y') } }, keeping)).toEqual({ state: { seen: [0, 1] } });
  });
});

describe('inputRequired, keep and the in-process steps', () => {
  it('refuses a request for nothing, an unknown method and a state that is not JSON', () => {
    expect(() => inputRequired({ inputRequests: {} })).toThrow(InvalidInputRequestError);
    expect(() => inputRequired({ inputRequests: { x: { method: 'tools/call' } as never } })).toThrow(InvalidInputRequestError);
    expect(() => inputRequired({ inputRequests: { x: ask('?') }, state: { when: new Date() } as never })).toThrow(InvalidHandlerStateError);
    expect(() => inputRequired({ inputRequests: { x: ask('?') }, state: { n: Number.NaN } })).toThrow('state.n');
  });

  it('refuses to keep a state that is not JSON, keeping the one before', async () => {
    const kept: HandlerCall<JsonObject> = (context) => {
      context.keep('before');
      expect(() => context.keep(10n as never)).toThrow(InvalidHandlerStateError);
      return { state: context.state as string };
    };
    expect(await attempt({}, kept)).toEqual({ state: 'before' });
  });

  it('allows maxInputRounds returns in one legacy request, and fails the next', () => {
    const steps = stepsInProcess({ refusesUndeclared: 'handler_failure', ask: async () => ({}) }, 2);
    steps.returned({});
    steps.returned({});
    expect(() => steps.returned({})).toThrow(LimitExceededError);
  });
});
