import { describe, expect, it } from 'vitest';
import { DeliveryLedger, MAX_ORIGINS_REMEMBERED, MAX_OWN_IN_FLIGHT } from '../../src/redis/delivery-ledger.ts';

/** The event a node published as `seq` in these tests (a copy sent again holds the same). */
const ev = (seq: number) => `{"type":"resource_updated","uri":"test://${seq}"}`;

const header = (origin: string, seq: number, ordinal: number, event = ev(seq)) => ({ id: `${ordinal}-0`, ordinal, origin, seq, event });

describe('delivery ledger', () => {
  it('applies each origin-sequence once: a resent copy is skipped', () => {
    const ledger = new DeliveryLedger('self');
    ledger.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
    expect(ledger.accept(header('other', 1, 1))).toEqual({ gap: false, apply: true });
    expect(ledger.accept(header('other', 1, 2))).toEqual({ gap: false, apply: false });
    expect(ledger.accept(header('other', 2, 3))).toEqual({ gap: false, apply: true });
  });

  it('an own event applied at once is skipped when the stream gives it back', () => {
    const ledger = new DeliveryLedger('self');
    ledger.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
    expect(ledger.applyOwnAtOnce(1, ev(1))).toBe(true);
    ledger.sending(1, ev(1));
    ledger.sending(2, ev(2));
    expect(ledger.accept(header('self', 1, 1))).toEqual({ gap: false, apply: false });
    expect(ledger.accept(header('self', 2, 2))).toEqual({ gap: false, apply: true });
  });

  it('an own event the stream already gave back is not applied again when its publish is reported failed', () => {
    // Redis carried out the publish and the node read it back, but the link
    // dropped before the publish's own answer arrived.
    const ledger = new DeliveryLedger('self');
    ledger.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
    ledger.sending(1, ev(1));
    expect(ledger.accept(header('self', 1, 1))).toEqual({ gap: false, apply: true });
    expect(ledger.applyOwnAtOnce(1, ev(1))).toBe(false);
    expect(ledger.applyOwnAtOnce(2, ev(2))).toBe(true);
  });

  it('an own event whose resend Redis refuses again is not applied again, and still applies nowhere twice once it goes through', () => {
    // Redis refused 1 (an error reply, the link up), the node applied it at once, resent it, and Redis refused it again.
    const ledger = new DeliveryLedger('self');
    ledger.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
    ledger.sending(1, ev(1));
    expect(ledger.applyOwnAtOnce(1, ev(1))).toBe(true);
    ledger.sending(1, ev(1));
    expect(ledger.applyOwnAtOnce(1, ev(1))).toBe(false);
    // Resent under a later seq and refused once more: still applied once.
    ledger.restamp(1, 2);
    ledger.sending(2, ev(1));
    expect(ledger.applyOwnAtOnce(2, ev(1))).toBe(false);
    ledger.sending(2, ev(1));
    expect(ledger.accept(header('self', 2, 1, ev(1)))).toEqual({ gap: false, apply: false });
  });

  it('an own event whose publish failed is applied at once though a later one was read back', () => {
    // Sent 1 and 2; Redis refused 1 (an error reply) and carried out 2, which was read before 1's answer came.
    const ledger = new DeliveryLedger('self');
    ledger.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
    ledger.sending(1, ev(1));
    ledger.sending(2, ev(2));
    expect(ledger.accept(header('self', 2, 1))).toEqual({ gap: false, apply: true });
    expect(ledger.applyOwnAtOnce(1, ev(1))).toBe(true);
    // Resent under a later seq (below 2 every node would drop it): applied here already, so not again.
    ledger.restamp(1, 3);
    ledger.sending(3, ev(1));
    expect(ledger.accept(header('self', 3, 2, ev(1)))).toEqual({ gap: false, apply: false });
  });

  it('a restamped own event whose first publish reached the stream after all is applied once, and is no forgery', () => {
    // Sent 1 and 2; the link dropped with both answers lost. 1 was carried out, 2 too; both are resent, under 3 and 4.
    const ledger = new DeliveryLedger('self');
    ledger.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
    ledger.sending(1, ev(1));
    ledger.sending(2, ev(2));
    expect(ledger.applyOwnAtOnce(1, ev(1))).toBe(true);
    expect(ledger.applyOwnAtOnce(2, ev(2))).toBe(true);
    ledger.restamp(1, 3);
    ledger.sending(3, ev(1));
    ledger.restamp(2, 4);
    ledger.sending(4, ev(2));
    expect(ledger.accept(header('self', 1, 1))).toEqual({ gap: false, apply: false });
    expect(ledger.accept(header('self', 2, 2))).toEqual({ gap: false, apply: false });
    expect(ledger.accept(header('self', 3, 3, ev(1)))).toEqual({ gap: false, apply: false });
    expect(ledger.accept(header('self', 4, 4, ev(2)))).toEqual({ gap: false, apply: false });
    expect(ledger.awaitingOwn).toBe(0);
  });

  it('a restamped own event that was never applied at once is applied when read back', () => {
    const ledger = new DeliveryLedger('self');
    ledger.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
    ledger.restamp(4, 5);
    ledger.sending(5, ev(5));
    expect(ledger.accept(header('self', 5, 1))).toEqual({ gap: false, apply: true });
  });

  it('an entry without an ordinal (not written by a bus) is not counted: the next is no gap', () => {
    const ledger = new DeliveryLedger('self');
    ledger.reconcile({ epoch: 'e', ordinal: 7, id: '7-0' });
    expect(ledger.skip('8-0', undefined)).toEqual({ gap: false, apply: false });
    expect(ledger.lastId).toBe('8-0');
    expect(ledger.accept(header('other', 1, 8))).toEqual({ gap: false, apply: true });
    // One with an ordinal out of line still is a gap.
    expect(ledger.skip('10-0', 10).gap).toBe(true);
  });

  it('forgets own events applied at once that will never come back: those of a queue dropped while Redis was away', () => {
    const ledger = new DeliveryLedger('self');
    ledger.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
    // A long outage: 1,000 own events applied at once, the queue overflowed and was dropped.
    for (let seq = 1; seq <= 1_000; seq++) expect(ledger.applyOwnAtOnce(seq, ev(seq))).toBe(true);
    expect(ledger.awaitingOwn).toBe(1_000);
    // Two more, queued after the drop, reach Redis once it is back; the first is read, the other not yet.
    expect(ledger.applyOwnAtOnce(1_001, ev(1_001))).toBe(true);
    expect(ledger.applyOwnAtOnce(1_002, ev(1_002))).toBe(true);
    ledger.sending(1_001, ev(1_001));
    ledger.sending(1_002, ev(1_002));
    expect(ledger.accept(header('self', 1_001, 1))).toEqual({ gap: false, apply: false });
    expect(ledger.awaitingOwn).toBe(1);
    expect(ledger.accept(header('self', 1_002, 2))).toEqual({ gap: false, apply: false });
    expect(ledger.awaitingOwn).toBe(0);
    // A copy of 1,001 sent again now is not applied twice. It cannot be this node's (1,002 went out after it, so a
    // resend would carry a new seq), so it is reported too.
    expect(ledger.accept(header('self', 1_001, 3))).toEqual({ gap: false, apply: false, problem: { type: 'not_sent_by_this_node', seq: 1_001 } });
    expect(ledger.accept(header('self', 1_002, 4))).toEqual({ gap: false, apply: false });
  });

  it('an entry in its own name with a seq it never sent is refused, and its own events still apply', () => {
    // Written by something other than this node (a forger, a buggy writer): taken as read back, seq 999… would make
    // every later own event look like a copy already applied.
    const ledger = new DeliveryLedger('self');
    ledger.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
    ledger.sending(1, ev(1));
    const forged = ledger.accept(header('self', 999_999_999_999_999, 1));
    expect(forged).toEqual({ gap: false, apply: false, problem: { type: 'not_sent_by_this_node', seq: 999_999_999_999_999 } });
    expect(ledger.accept(header('self', 1, 2))).toEqual({ gap: false, apply: true });
    ledger.sending(2, ev(2));
    expect(ledger.applyOwnAtOnce(3, ev(3))).toBe(true);
    expect(ledger.accept(header('self', 2, 3))).toEqual({ gap: false, apply: true });
  });

  it('keeps a bounded number of other nodes, forgetting the one read least recently, and never its own', () => {
    const ledger = new DeliveryLedger('self');
    ledger.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
    let ordinal = 0;
    ledger.sending(1, ev(1));
    expect(ledger.accept(header('self', 1, ++ordinal)).apply).toBe(true);
    expect(ledger.accept(header('steady', 1, ++ordinal)).apply).toBe(true);
    // Nodes that restart come back under new ids: twice the bound of them, each publishing once.
    for (let node = 0; node < 2 * MAX_ORIGINS_REMEMBERED; node++) {
      expect(ledger.accept(header(`restarted-${node}`, 1, ++ordinal)).apply).toBe(true);
      // One node that keeps publishing is read recently, so it is never the one forgotten.
      if (node % 1_000 === 0) ledger.accept(header('steady', 2 + node, ++ordinal));
    }
    expect(ledger.originsRemembered).toBe(MAX_ORIGINS_REMEMBERED);
    // Recent origins still have their resent copies skipped; the own node's too.
    expect(ledger.accept(header(`restarted-${2 * MAX_ORIGINS_REMEMBERED - 1}`, 1, ++ordinal)).apply).toBe(false);
    expect(ledger.accept(header('steady', 8_002, ++ordinal)).apply).toBe(false);
    expect(ledger.accept(header('self', 1, ++ordinal)).apply).toBe(false);
    expect(ledger.applyOwnAtOnce(1, ev(1))).toBe(false);
    // The oldest is forgotten: a copy of its event would be applied again.
    expect(ledger.accept(header('restarted-0', 1, ++ordinal)).apply).toBe(true);
  });

  it("an entry in another node's name far ahead of its seq is applied, and that node's next events are too, reported", () => {
    const ledger = new DeliveryLedger('self');
    ledger.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
    expect(ledger.accept(header('other', 1, 1))).toEqual({ gap: false, apply: true });
    expect(ledger.accept(header('other', 999_999_999_999_999, 2, 'forged'))).toEqual({ gap: false, apply: true });
    expect(ledger.accept(header('other', 2, 3))).toEqual({
      gap: false,
      apply: true,
      problem: { type: 'out_of_sequence', origin: 'other', seq: 2, after: 999_999_999_999_999 },
    });
    expect(ledger.accept(header('other', 3, 4))).toEqual({ gap: false, apply: true });
  });

  it("another event under a seq of another node's already read is applied and reported; the same event is a copy", () => {
    const ledger = new DeliveryLedger('self');
    ledger.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
    expect(ledger.accept(header('other', 1, 1, 'forged'))).toEqual({ gap: false, apply: true });
    expect(ledger.accept(header('other', 1, 2))).toEqual({
      gap: false,
      apply: true,
      problem: { type: 'out_of_sequence', origin: 'other', seq: 1, after: 1 },
    });
    expect(ledger.accept(header('other', 1, 3))).toEqual({ gap: false, apply: false });
  });

  it('an entry in its own name with another event under a seq in flight is refused and changes nothing', () => {
    const ledger = new DeliveryLedger('self');
    ledger.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
    ledger.sending(1, ev(1));
    ledger.sending(2, ev(2));
    const refused = { gap: false, apply: false, problem: { type: 'not_sent_by_this_node', seq: 2 } };
    expect(ledger.accept(header('self', 2, 1, 'forged'))).toEqual(refused);
    expect(ledger.accept(header('self', 1, 2))).toEqual({ gap: false, apply: true });
    expect(ledger.accept(header('self', 2, 3))).toEqual({ gap: false, apply: true });
    // Below what was read back, or another event under the seq read last: not this node's either.
    expect(ledger.accept(header('self', 1, 4, 'forged')).problem).toEqual({ type: 'not_sent_by_this_node', seq: 1 });
    expect(ledger.accept(header('self', 2, 5, 'forged')).problem).toEqual({ type: 'not_sent_by_this_node', seq: 2 });
    expect(ledger.accept(header('self', 2, 6))).toEqual({ gap: false, apply: false });
  });

  it('an own event dropped from the in-flight bound is still applied when read back', () => {
    const ledger = new DeliveryLedger('self');
    ledger.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
    for (let seq = 1; seq <= MAX_OWN_IN_FLIGHT + 2; seq++) ledger.sending(seq, ev(seq));
    for (let seq = 1; seq <= MAX_OWN_IN_FLIGHT + 2; seq++) expect(ledger.accept(header('self', seq, seq)).apply).toBe(true);
  });

  it('a head whose newest entry is below the one read last is a gap: a read after it would wait for good', () => {
    const ledger = new DeliveryLedger('self');
    ledger.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
    ledger.accept(header('other', 1, 1));
    expect(ledger.reconcile({ epoch: 'e', ordinal: 1, id: '1-0' })).toBe('continuous');
    ledger.accept({ ...header('other', 2, 2), id: '99999999999999-0' });
    expect(ledger.reconcile({ epoch: 'e', ordinal: 3, id: '1700000000000-0' })).toBe('gap');
    expect(ledger.lastId).toBe('1700000000000-0');
  });
});
