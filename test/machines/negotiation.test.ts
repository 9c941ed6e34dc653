/**
 * The negotiation rule, driven with a simulated clock: a discover result is
 * evidence whenever it arrives while undecided; an era is adopted only on
 * positive evidence, never because something stayed silent.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock, type AnyEventObject } from 'xstate';
import {
  negotiationMachine,
  type Negotiated,
  type NegotiationEvent,
  type NegotiationInput,
} from '../../machines/negotiation.machine.ts';
import { NegotiationError } from '../../machines/negotiation-errors.ts';
import { negotiated } from './negotiated.ts';

const PROBE_MS = 2_000;
const PATIENCE_MS = 30_000;


/** A negotiation whose wire records what it was asked to send; the test plays the server's answers. */
function negotiation(input: Partial<NegotiationInput> = {}) {
  const clock = new SimulatedClock();
  const wire: string[] = [];
  let answerDiscover: ((event: AnyEventObject) => void) | undefined;
  let answerInitialize: ((event: AnyEventObject) => void) | undefined;
  let discoverAnswered = false;
  let printUnreadable: ((event: AnyEventObject) => void) | undefined;
  const machine = negotiationMachine.provide({
    actors: {
      unreadableOutput: fromCallback(({ sendBack }) => {
        printUnreadable = sendBack;
      }),
      discover: fromCallback<{ type: 'never' }, { version: string | undefined }>(({ sendBack, input: how }) => {
        wire.push(how.version === undefined ? 'server/discover' : `server/discover in ${how.version}`);
        discoverAnswered = false;
        answerDiscover = sendBack;
        return () => discoverAnswered || wire.push('cancel server/discover');
      }),
      initialize: fromCallback<{ type: 'never' }, { underModernEnvelope: boolean }>(({ sendBack, input: how }) => {
        wire.push(how.underModernEnvelope ? 'initialize under the modern envelope' : 'initialize');
        answerInitialize = sendBack;
      }),
      adopt: fromPromise<void, Negotiated>(async ({ input: adopted }) => {
        wire.push(`speak ${adopted.era}`);
      }),
    },
  });
  const actor = createActor(machine, {
    clock,
    input: { era: 'auto', probeTimeoutMs: PROBE_MS, patienceMs: PATIENCE_MS, previousEra: undefined, silenceMayMeanLegacy: true, ...input },
  }).start();
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  return {
    clock,
    wire,
    state: () => actor.getSnapshot().value,
    discover(event: Extract<NegotiationEvent, { type: `discover.${string}` }>) {
      discoverAnswered = true;
      answerDiscover!(event);
    },
    initialize(event: Extract<NegotiationEvent, { type: `initialize.${string}` }>) {
      answerInitialize!(event);
    },
    /** The peer prints a line that is no JSON-RPC message. */
    prints(sample: string) {
      printUnreadable!({ type: 'peer.unreadable', sample });
    },
    async output() {
      await settle();
      return actor.getSnapshot().output;
    },
  };
}

const modernAnswer = { type: 'discover.modern', negotiated: negotiated('modern') } as const;
const legacyAnswer = { type: 'initialize.legacy', negotiated: negotiated('legacy') } as const;
const refusal = { type: 'initialize.refused', error: new Error('Method not found (-32601)') } as const;

describe('first contact over stdio (era auto)', () => {
  it('a discover result within the probe timeout is modern, and nothing else is sent', async () => {
    const n = negotiation();
    n.discover(modernAnswer);
    expect(await n.output()).toEqual({ type: 'negotiated', negotiated: negotiated('modern') });
    expect(n.wire).toEqual(['server/discover', 'speak modern']);
  });

  it('after the probe timeout initialize goes out under the modern envelope, and the probe stays out', () => {
    const n = negotiation();
    n.clock.increment(PROBE_MS - 1);
    expect(n.wire).toEqual(['server/discover']);
    n.clock.increment(1);
    expect(n.wire).toEqual(['server/discover', 'initialize under the modern envelope']);
  });

  it('a discover result after the probe timeout, before the initialize answer, is modern', async () => {
    const n = negotiation();
    n.clock.increment(PROBE_MS + 500);
    n.discover(modernAnswer);
    expect(await n.output()).toEqual({ type: 'negotiated', negotiated: negotiated('modern') });
  });

  it('a slow modern server that refuses the enveloped initialize is still modern when its discover answer comes', async () => {
    const n = negotiation();
    n.clock.increment(PROBE_MS);
    n.initialize(refusal);
    expect(n.state()).toEqual({ probing: 'awaitingDiscover' });
    n.clock.increment(PATIENCE_MS - 1);
    n.discover(modernAnswer);
    expect(await n.output()).toEqual({ type: 'negotiated', negotiated: negotiated('modern') });
  });

  it('a silent legacy server that answers initialize is legacy; the probe is cancelled', async () => {
    const n = negotiation();
    n.clock.increment(PROBE_MS);
    n.initialize(legacyAnswer);
    expect(await n.output()).toEqual({ type: 'negotiated', negotiated: negotiated('legacy') });
    expect(n.wire).toEqual(['server/discover', 'initialize under the modern envelope', 'cancel server/discover', 'speak legacy']);
  });

  it('a legacy answer to the probe sends a plain initialize', async () => {
    const n = negotiation();
    n.discover({ type: 'discover.legacy', evidence: 'server/discover answered -32601' });
    n.initialize(legacyAnswer);
    expect(await n.output()).toEqual({ type: 'negotiated', negotiated: negotiated('legacy') });
    expect(n.wire).toEqual(['server/discover', 'initialize', 'speak legacy']);
  });

  it('a legacy server that took the enveloped initialize for modern is asked again, plainly, once its probe answer shows it legacy', async () => {
    const n = negotiation();
    n.clock.increment(PROBE_MS);
    n.initialize(refusal);
    n.discover({ type: 'discover.legacy', evidence: 'server/discover answered -32601' });
    n.initialize(legacyAnswer);
    expect(await n.output()).toEqual({ type: 'negotiated', negotiated: negotiated('legacy') });
    expect(n.wire).toEqual(['server/discover', 'initialize under the modern envelope', 'initialize', 'speak legacy']);
  });

  it('legacy evidence while the enveloped initialize is out waits for its answer', async () => {
    const n = negotiation();
    n.clock.increment(PROBE_MS);
    n.discover({ type: 'discover.legacy', evidence: 'server/discover answered -32601' });
    expect(n.wire).toEqual(['server/discover', 'initialize under the modern envelope']);
    n.initialize(legacyAnswer);
    expect(await n.output()).toEqual({ type: 'negotiated', negotiated: negotiated('legacy') });
  });

  it('a server that refuses a plain initialize after legacy evidence speaks neither era', async () => {
    const n = negotiation();
    n.discover({ type: 'discover.legacy', evidence: 'server/discover answered -32601' });
    n.initialize(refusal);
    const output = await n.output();
    expect(output).toMatchObject({ type: 'failed', error: expect.any(NegotiationError) });
    expect((output as { error: Error }).error.message).toContain('neither era');
  });

  it('silence past the patience of both requests fails; it is never evidence', async () => {
    const n = negotiation();
    n.clock.increment(PROBE_MS);
    n.clock.increment(PATIENCE_MS);
    const output = await n.output();
    expect(output).toMatchObject({ type: 'failed', error: expect.any(NegotiationError) });
    expect((output as { error: Error }).error.message).toBe('no answer to server/discover or initialize within 30000 ms');
  });

  it('a failed probe (authentication, a modern refusal) is an error', async () => {
    const n = negotiation();
    const error = new NegotiationError('authentication failed: HTTP 401');
    n.discover({ type: 'discover.failed', error });
    expect(await n.output()).toEqual({ type: 'failed', error });
    expect(n.wire).toEqual(['server/discover']);
  });

  it('an initialize result in no legacy version is an error', async () => {
    const n = negotiation();
    const error = new NegotiationError('initialize answered unsupported protocol version "2099-01-01"');
    n.discover({ type: 'discover.legacy', evidence: 'x' });
    n.initialize({ type: 'initialize.failed', error });
    expect(await n.output()).toEqual({ type: 'failed', error });
  });
});

describe('a reconnect to a server that was modern', () => {
  it('waits for the discover answer with an ordinary request’s patience, sending nothing else', async () => {
    const n = negotiation({ previousEra: 'modern' });
    n.clock.increment(8_000);
    expect(n.wire).toEqual(['server/discover']);
    n.discover(modernAnswer);
    expect(await n.output()).toEqual({ type: 'negotiated', negotiated: negotiated('modern') });
  });

  it('turns legacy only on an initialize result, after the patience ran out', async () => {
    const n = negotiation({ previousEra: 'modern' });
    n.clock.increment(PATIENCE_MS);
    expect(n.wire).toEqual(['server/discover', 'initialize under the modern envelope']);
    n.initialize(legacyAnswer);
    expect(await n.output()).toEqual({ type: 'negotiated', negotiated: negotiated('legacy') });
  });

  it('a discover answer later still is modern', async () => {
    const n = negotiation({ previousEra: 'modern' });
    n.clock.increment(PATIENCE_MS);
    n.clock.increment(10_000);
    n.discover(modernAnswer);
    expect(await n.output()).toEqual({ type: 'negotiated', negotiated: negotiated('modern') });
  });

  it('fails, without changing era, when neither request is ever answered', async () => {
    const n = negotiation({ previousEra: 'modern' });
    n.clock.increment(PATIENCE_MS);
    n.clock.increment(PATIENCE_MS);
    expect(await n.output()).toMatchObject({ type: 'failed' });
  });

  it('a legacy answer to the probe is evidence, and then so is an initialize result', async () => {
    const n = negotiation({ previousEra: 'modern' });
    n.discover({ type: 'discover.legacy', evidence: 'server/discover answered -32601' });
    n.initialize(legacyAnswer);
    expect(await n.output()).toEqual({ type: 'negotiated', negotiated: negotiated('legacy') });
  });
});

describe('the era pinned', () => {
  it('to modern: the probe timeout does not apply, even at 1 ms; a late discover result is modern', async () => {
    const n = negotiation({ era: 'modern', probeTimeoutMs: 1 });
    n.clock.increment(5_000);
    expect(n.wire).toEqual(['server/discover']);
    n.discover(modernAnswer);
    expect(await n.output()).toEqual({ type: 'negotiated', negotiated: negotiated('modern') });
  });

  it('to modern: legacy evidence fails, and initialize is never sent', async () => {
    const n = negotiation({ era: 'modern' });
    n.discover({ type: 'discover.legacy', evidence: 'server/discover answered -32601' });
    const output = await n.output();
    expect((output as { error: Error }).error.message).toBe('era pinned to modern, but the server is legacy (server/discover answered -32601)');
    n.clock.increment(2 * PATIENCE_MS);
    expect(n.wire).toEqual(['server/discover']);
  });

  it('to modern: silence past the patience fails', async () => {
    const n = negotiation({ era: 'modern' });
    n.clock.increment(PATIENCE_MS);
    expect((await n.output()) as unknown).toMatchObject({ type: 'failed', error: { message: 'no answer to server/discover within 30000 ms' } });
  });

  it('to legacy: a plain initialize, no probe', async () => {
    const n = negotiation({ era: 'legacy' });
    n.initialize(legacyAnswer);
    expect(await n.output()).toEqual({ type: 'negotiated', negotiated: negotiated('legacy') });
    expect(n.wire).toEqual(['initialize', 'speak legacy']);
  });
});

describe('over HTTP, where a legacy server answers every POST', () => {
  it('silence is never legacy: no initialize, and a failure after the patience', async () => {
    const n = negotiation({ silenceMayMeanLegacy: false });
    n.clock.increment(PROBE_MS);
    expect(n.wire).toEqual(['server/discover']);
    n.clock.increment(PATIENCE_MS);
    expect(await n.output()).toMatchObject({ type: 'failed' });
    expect(n.wire).toEqual(['server/discover', 'cancel server/discover']);
  });

  it('a slow discover answer within the patience is modern', async () => {
    const n = negotiation({ silenceMayMeanLegacy: false });
    n.clock.increment(10_000);
    n.discover(modernAnswer);
    expect(await n.output()).toEqual({ type: 'negotiated', negotiated: negotiated('modern') });
  });
});

describe('a peer that prints what is not JSON-RPC', () => {
  it('fails one probe timeout after the first such line, quoting it, instead of waiting out initialize', async () => {
    const n = negotiation();
    n.clock.increment(PROBE_MS); // initialize goes out beside the probe
    n.prints('Starting server...');
    n.prints('second line');
    n.clock.increment(PROBE_MS - 1);
    expect(n.state()).toEqual({ probing: 'initializingUnderEnvelope' });
    n.clock.increment(1);
    const output = (await n.output()) as { type: string; error: Error };
    expect(output.type).toBe('failed');
    expect(output.error).toBeInstanceOf(NegotiationError);
    expect(output.error.message).toBe('the server printed something that is not JSON-RPC instead of answering: "Starting server..."');
  });

  it('a banner before a prompt answer still negotiates', async () => {
    const n = negotiation();
    n.prints('banner');
    n.clock.increment(PROBE_MS - 1);
    n.discover(modernAnswer);
    expect(await n.output()).toMatchObject({ type: 'negotiated', negotiated: { era: 'modern' } });
    n.clock.increment(PATIENCE_MS);
    expect(await n.output()).toMatchObject({ type: 'negotiated' });
  });
});

describe('a -32022 refusal that names a revision we speak', () => {
  const refused = { type: 'discover.versionRefused', retryWith: '2026-07-28', error: new Error('Unsupported protocol version') } as const;

  it('gets the probe once more in that revision, and its answer decides', async () => {
    const n = negotiation({ silenceMayMeanLegacy: false });
    n.discover(refused);
    expect(n.wire).toEqual(['server/discover', 'server/discover in 2026-07-28']);
    n.discover(modernAnswer);
    expect(await n.output()).toEqual({ type: 'negotiated', negotiated: negotiated('modern') });
  });

  it('a second refusal fails the negotiation instead of probing again', async () => {
    const n = negotiation({ silenceMayMeanLegacy: false });
    n.discover(refused);
    n.discover(refused);
    const output = (await n.output()) as { type: string; error: Error };
    expect(n.wire).toEqual(['server/discover', 'server/discover in 2026-07-28']);
    expect(output.type).toBe('failed');
    expect(output.error).toBeInstanceOf(NegotiationError);
    expect(output.error.message).toBe('the server lists 2026-07-28 yet refused it again');
  });

  it('the retried probe gets its own patience', async () => {
    const n = negotiation({ silenceMayMeanLegacy: false });
    n.clock.increment(PATIENCE_MS - 1);
    n.discover(refused);
    n.clock.increment(PATIENCE_MS - 1);
    expect(n.state()).toEqual({ probing: 'patient' });
    n.clock.increment(1);
    expect(await n.output()).toMatchObject({ type: 'failed' });
  });
});
