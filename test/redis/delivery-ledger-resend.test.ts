import { describe, expect, it } from 'vitest';
import { DeliveryLedger } from '../../src/redis/delivery-ledger.ts';

/** The event a node published as `seq` in these tests (a copy sent again holds the same). */
const ev = (seq: number) => `{"type":"resource_updated","uri":"test://${seq}"}`;

const own = (seq: number, ordinal: number, event = ev(seq)) => ({ id: `${ordinal}-0`, ordinal, origin: 'self', seq, event });

function ledger(): DeliveryLedger {
  const fresh = new DeliveryLedger('self');
  fresh.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
  return fresh;
}

/**
 * Resends once live again, as the bus does: the queued own events `queued[i]` (event `ev(i + 1)`) each go out under a
 * new seq, every one being below the highest sent. Returns the seqs they went out under.
 */
function resend(ledger: DeliveryLedger, queued: number[]): number[] {
  return queued.map((seq, index) => {
    const to = ledger.highestSent + 1;
    ledger.restamp(seq, to);
    ledger.sending(to, ev(index + 1));
    return to;
  });
}

describe('delivery ledger: own events resent under a new seq after a later one was read back', () => {
  it('one refused while a later one went through keeps its mark until its resend is read back', () => {
    // Sent 1 and 2; Redis refused 1 (applied at once) and carried out 2, read back (in the catch-up) before 1 is resent.
    const refused = ledger();
    refused.sending(1, ev(1));
    refused.sending(2, ev(2));
    expect(refused.applyOwnAtOnce(1, ev(1))).toBe(true);
    expect(refused.accept(own(2, 1))).toEqual({ gap: false, apply: true });
    expect(refused.awaitingOwn).toBe(1);
    refused.restamp(1, 3);
    refused.sending(3, ev(1));
    expect(refused.accept(own(3, 2, ev(1)))).toEqual({ gap: false, apply: false });
    expect(refused.awaitingOwn).toBe(0);
  });

  it('ones of unknown outcome that did land and were read back are not applied again when resent', () => {
    // Sent 1 and 2; the link dropped with both answers lost (both applied at once); both had landed.
    const both = ledger();
    both.sending(1, ev(1));
    both.sending(2, ev(2));
    expect(both.applyOwnAtOnce(1, ev(1))).toBe(true);
    expect(both.applyOwnAtOnce(2, ev(2))).toBe(true);
    expect(both.accept(own(1, 1))).toEqual({ gap: false, apply: false });
    expect(both.accept(own(2, 2))).toEqual({ gap: false, apply: false });
    // Once live again: 1 is below the highest sent, so it goes as 3; 2 is then below 3 and goes as 4.
    expect(resend(both, [1, 2])).toEqual([3, 4]);
    expect(both.accept(own(3, 3, ev(1)))).toEqual({ gap: false, apply: false });
    expect(both.accept(own(4, 4, ev(2)))).toEqual({ gap: false, apply: false });
    expect(both.awaitingOwn).toBe(0);
  });

  it('ones read back (and applied) before their publish was reported failed are not applied again when resent', () => {
    // Sent 1 and 2, both read back; then the writer's link dropped with both answers still on the way.
    const read = ledger();
    read.sending(1, ev(1));
    read.sending(2, ev(2));
    expect(read.accept(own(1, 1))).toEqual({ gap: false, apply: true });
    expect(read.accept(own(2, 2))).toEqual({ gap: false, apply: true });
    expect(read.applyOwnAtOnce(1, ev(1))).toBe(false);
    expect(read.applyOwnAtOnce(2, ev(2))).toBe(false);
    expect(resend(read, [1, 2])).toEqual([3, 4]);
    expect(read.accept(own(3, 3, ev(1)))).toEqual({ gap: false, apply: false });
    expect(read.accept(own(4, 4, ev(2)))).toEqual({ gap: false, apply: false });
    expect(read.awaitingOwn).toBe(0);
  });

  it('keeps queued marks past an earlier own event read back, and forgets a dropped queue once one sent after it is read', () => {
    const outage = ledger();
    outage.sending(1, ev(1));
    outage.sending(2, ev(2));
    expect(outage.applyOwnAtOnce(1, ev(1))).toBe(true);
    expect(outage.accept(own(2, 1))).toEqual({ gap: false, apply: true });
    // Redis went away again before 1 was resent: a long outage, its queue overflowed and was dropped.
    for (let seq = 3; seq <= 1_002; seq++) expect(outage.applyOwnAtOnce(seq, ev(seq))).toBe(true);
    expect(outage.awaitingOwn).toBe(1_001);
    // Once live again, only the announcement goes out; read back, it proves the rest will never come.
    outage.sending(1_003, '{"type":"everything_changed"}');
    expect(outage.accept(own(1_003, 2, '{"type":"everything_changed"}'))).toEqual({ gap: false, apply: true });
    expect(outage.awaitingOwn).toBe(0);
  });
  it('one applied at once and sent again keeps its mark when a later own event is read back before its refusal', () => {
    // Published while Redis was away (applied at once), flushed with a later one; Redis refuses it and takes the next,
    // and the reader hands the next back before the writer's refusal is handled (two sockets, either may come first).
    const early = ledger();
    expect(early.applyOwnAtOnce(1, ev(1))).toBe(true);
    early.sending(1, ev(1));
    early.sending(2, ev(2));
    expect(early.accept(own(2, 1))).toEqual({ gap: false, apply: true });
    expect(early.applyOwnAtOnce(1, ev(1))).toBe(false);
  });

  it('a resend refused again keeps its mark when a later own event is read back before that refusal', () => {
    const twice = ledger();
    twice.sending(1, ev(1));
    twice.sending(2, ev(2));
    expect(twice.applyOwnAtOnce(1, ev(1))).toBe(true);
    expect(twice.accept(own(2, 1))).toEqual({ gap: false, apply: true });
    twice.restamp(1, 3);
    twice.sending(3, ev(1));
    twice.sending(4, ev(4));
    expect(twice.accept(own(4, 2))).toEqual({ gap: false, apply: true });
    expect(twice.applyOwnAtOnce(3, ev(1))).toBe(false);
    // Sent once more as 5 and read back: not applied either, and nothing stays marked.
    twice.restamp(3, 5);
    twice.sending(5, ev(1));
    expect(twice.accept(own(5, 3, ev(1)))).toEqual({ gap: false, apply: false });
    expect(twice.awaitingOwn).toBe(0);
  });
});

/**
 * One round of `resend`; then Redis refuses each with an error reply (`refused`), or the link drops with every answer
 * lost (`unanswered`). Returns the seqs they went out under.
 */
function resendRound(ledger: DeliveryLedger, queued: number[], outcome: 'refused' | 'unanswered'): number[] {
  const resent = resend(ledger, queued);
  resent.forEach((seq, index) => {
    if (outcome === 'refused') ledger.refused(seq);
    expect(ledger.applyOwnAtOnce(seq, ev(index + 1))).toBe(false);
  });
  return resent;
}

describe('delivery ledger: own events Redis keeps refusing', () => {
  it('marks as many of them as there are events, however often Redis refuses their resends', () => {
    // Three published while live, refused (READONLY after a failover) and applied at once; then 1,000 refused resends.
    const refused = ledger();
    for (const seq of [1, 2, 3]) refused.sending(seq, ev(seq));
    for (const seq of [1, 2, 3]) {
      refused.refused(seq);
      expect(refused.applyOwnAtOnce(seq, ev(seq))).toBe(true);
    }
    let queued = [1, 2, 3];
    for (let round = 0; round < 1_000; round++) queued = resendRound(refused, queued, 'refused');
    expect(refused.awaitingOwn).toBe(3);
    // The next resend goes through: read back, none is applied again, and nothing stays marked.
    const landed = queued.map((seq, index) => {
      const to = refused.highestSent + 1;
      refused.restamp(seq, to);
      refused.sending(to, ev(index + 1));
      return to;
    });
    landed.forEach((seq, index) => expect(refused.accept(own(seq, index + 1, ev(index + 1)))).toEqual({ gap: false, apply: false }));
    expect(refused.awaitingOwn).toBe(0);
  });

  it('an entry under the seq of a publish Redis refused is not one this node sent', () => {
    const refused = ledger();
    refused.sending(1, ev(1));
    refused.sending(2, ev(2));
    refused.refused(1);
    expect(refused.applyOwnAtOnce(1, ev(1))).toBe(true);
    resendRound(refused, [1], 'refused');
    expect(refused.accept(own(1, 1))).toEqual({ gap: false, apply: false, problem: { type: 'not_sent_by_this_node', seq: 1 } });
  });

  it('keeps the mark of one resent under a new seq while a send of it that went unanswered may still come back', () => {
    // 1 sent, the link dropped with its answer lost (it did land); resent as 1 (still the highest sent) and refused.
    const unanswered = ledger();
    unanswered.sending(1, ev(1));
    expect(unanswered.applyOwnAtOnce(1, ev(1))).toBe(true);
    unanswered.sending(1, ev(1));
    unanswered.refused(1);
    expect(unanswered.applyOwnAtOnce(1, ev(1))).toBe(false);
    // 2 published and sent meanwhile; 1 goes out as 3 and is refused again before its first copy is read.
    unanswered.sending(2, ev(2));
    resendRound(unanswered, [1], 'refused');
    expect(unanswered.accept(own(1, 1))).toEqual({ gap: false, apply: false });
    expect(unanswered.accept(own(2, 2))).toEqual({ gap: false, apply: true });
    // Only the mark of its resend (queued again as 3) stays.
    expect(unanswered.awaitingOwn).toBe(1);
  });

  it('keeps the marks of resends that went unanswered: each may come back under its own seq', () => {
    const unanswered = ledger();
    unanswered.sending(1, ev(1));
    unanswered.sending(2, ev(2));
    expect(unanswered.applyOwnAtOnce(1, ev(1))).toBe(true);
    unanswered.refused(2);
    expect(unanswered.applyOwnAtOnce(2, ev(2))).toBe(true);
    // Resent as 3 and 4, the link dropped again: either may have landed, and 1's first send too, but not 2's.
    resendRound(unanswered, [1, 2], 'unanswered');
    expect(unanswered.awaitingOwn).toBe(3);
    expect(unanswered.accept(own(1, 1))).toEqual({ gap: false, apply: false });
    expect(unanswered.accept(own(3, 2, ev(1)))).toEqual({ gap: false, apply: false });
    expect(unanswered.accept(own(4, 3, ev(2)))).toEqual({ gap: false, apply: false });
  });
});
