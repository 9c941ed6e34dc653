/**
 * What one node has read from the shared stream, and what it may apply. Every
 * entry carries the stream-wide ordinal the publish script gave it, so a
 * missing ordinal is a gap the node can prove; and its origin node and that
 * node's sequence number, so an entry is applied once even when a publish of
 * unknown outcome was sent again, or its own event was applied at once while
 * Redis was away (and then sent again, under a new seq if a later one went out
 * meanwhile). Anyone with write access to the stream can write an entry in
 * any node's name: only what the node itself sent, and the order a bus writes
 * in, tell one apart, and an entry that breaks them is reported, never allowed
 * to make later events look like copies. Pure bookkeeping: no I/O.
 */
import { createHash } from 'node:crypto';
import type { StreamEntryProblem } from './entry-errors.ts';
import { compareStreamIds } from './stream-protocol.ts';

/** The position a node resumes from: the stream's generation, the last ordinal and entry id seen. */
export interface StreamPosition {
  epoch: string;
  ordinal: number;
  id: string;
}

/** One entry as read: its stream id and ordinal, its origin node and sequence number, and its event as written. */
export interface EntryHeader {
  id: string;
  ordinal: number;
  origin: string;
  seq: number;
  /** The event's JSON as the entry holds it: a copy sent again holds the same. */
  event: string;
}

/**
 * What reading an entry means: `gap` before it (resync first), whether to apply it, and `problem` when it is not
 * what its header says (to be reported, never passed over silently).
 */
export interface Acceptance {
  gap: boolean;
  apply: boolean;
  problem?: StreamEntryProblem;
}

/**
 * How many other nodes' sequence numbers a ledger keeps: the node read least
 * recently is forgotten first. Every restart of a node brings a new node id, so
 * without a bound a long-lived node would keep one per restart it ever saw. A
 * resent copy follows its first within one reconnect of its origin, long before
 * thousands of other nodes have published.
 */
export const MAX_ORIGINS_REMEMBERED = 4_096;

/** How many own events sent and not read back a ledger keeps (an outcome is known long before this many more). */
export const MAX_OWN_IN_FLIGHT = 10_000;

/** An event as the ledger remembers it: a digest of its JSON, so a long URI costs no more than a short one. */
function digestOf(event: string): string {
  return createHash('sha256').update(event).digest('base64');
}

/** One entry of an origin, for telling a copy sent again (same seq, same event) from anything else. */
interface Written {
  seq: number;
  digest: string;
}

export class DeliveryLedger {
  private position: StreamPosition | undefined;
  /**
   * Own events applied before their copy was read (at once while Redis was away), or read back before their publish
   * was reported failed, by seq: skipped when a copy comes back from the stream, under this seq or the one it is
   * resent as (`restamp`).
   */
  private readonly appliedAtOnce = new Map<number, string>();
  /**
   * Those of `appliedAtOnce` queued to be sent (again), by seq: the highest seq sent when each was queued. In the order
   * they were queued, so in that value's order too: forgetting stops at the first one it keeps.
   */
  private readonly queuedAfter = new Map<number, number>();
  /**
   * The rest of `appliedAtOnce`: sent, or being sent (`restamp`), in the order they went out, which is `seq` order, so
   * forgetting stops at the first above the seq read. A restamped one kept comes last whatever its seq: it may be
   * forgotten later than it could be, never sooner.
   */
  private readonly sentMarks = new Set<number>();
  /**
   * Those of `appliedAtOnce` a send of which failed unanswered (the link dropped): it may have written an entry, so a
   * copy may still come back under their seq. One Redis refused with an error reply wrote nothing (`refused`).
   */
  private readonly mayHaveLanded = new Set<number>();
  /** Own sends Redis refused with an error reply, until `applyOwnAtOnce` takes their failure. */
  private readonly refusedSends = new Set<number>();
  /** See `highestSent`. */
  private sentUpTo = 0;
  /** Own events handed to Redis and not read back yet, oldest first: one whose publish fails is still unapplied. */
  private readonly ownInFlight = new Map<number, string>();
  /** Highest own sequence number read back from the stream. */
  private ownReadUpTo = 0;
  /** The last own entry read back: a copy sent again under its seq comes next. */
  private lastOwnRead: Written | undefined;
  /** Highest own sequence number dropped from `ownInFlight` by its bound: read back later, it cannot be checked. */
  private ownForgottenUpTo = 0;
  /** The last entry read per other origin, least recently read first: a resent copy repeats it. */
  private readonly lastRead = new Map<string, Written>();

  constructor(readonly nodeId: string) {}

  /** The id to read after; `0-0` before the first connection. */
  get lastId(): string {
    return this.position?.id ?? '0-0';
  }

  get lastOrdinal(): number {
    return this.position?.ordinal ?? 0;
  }

  /**
   * Compares the stream's current head with what this node saw. The first
   * time, the node adopts the head (it has no clients to owe history to);
   * a new epoch (Redis restarted without persistence, or the keys were
   * deleted), an ordinal that went backwards or a newest entry below the one
   * read last (the stream was deleted after an entry with an id in the future:
   * a read after that id would wait for good) is a gap, and the node adopts the
   * head too. Otherwise it reads on from where it was.
   */
  reconcile(head: StreamPosition): 'first' | 'continuous' | 'gap' {
    const known = this.position;
    if (known === undefined || known.epoch !== head.epoch || head.ordinal < known.ordinal || compareStreamIds(head.id, known.id) < 0) {
      this.position = { ...head };
      return known === undefined ? 'first' : 'gap';
    }
    return 'continuous';
  }

  /** After reading the backlog: ordinals announced by the head but never read were trimmed away. */
  missedBefore(head: StreamPosition): boolean {
    if (this.lastOrdinal >= head.ordinal) return false;
    this.position = { epoch: head.epoch, ordinal: head.ordinal, id: head.id };
    return true;
  }

  accept(entry: EntryHeader): Acceptance {
    const gap = entry.ordinal !== this.lastOrdinal + 1;
    this.position = { epoch: this.position?.epoch ?? '', ordinal: entry.ordinal, id: entry.id };
    const written = { seq: entry.seq, digest: digestOf(entry.event) };
    return { gap, ...(entry.origin === this.nodeId ? this.readOwn(written) : this.readOther(entry.origin, written)) };
  }

  /**
   * A malformed entry still advances the read position. One without an ordinal did not come from the publish
   * script (whoever wrote it did not count it), so the ordinal stays: the next entry's is then no gap.
   */
  skip(id: string, ordinal: number | undefined): Acceptance {
    const gap = ordinal !== undefined && ordinal !== this.lastOrdinal + 1;
    this.position = { epoch: this.position?.epoch ?? '', ordinal: ordinal ?? this.lastOrdinal, id };
    return { gap, apply: false };
  }

  /**
   * This node is about to apply its own event `seq` before it reached Redis.
   * False when the stream already gave it back (a publish that Redis carried
   * out but whose answer was lost with the link): it was applied then, and
   * applying it again would deliver it twice. False too when it was applied at
   * once before: a resend that Redis refused again. Either way the bus queues
   * it to be sent (again), so it stays marked as applied until that copy is
   * read back, or its queue is dropped (`forgetAppliedUpTo`).
   */
  applyOwnAtOnce(seq: number, event: string): boolean {
    // Sent and not read back: its publish failed, whatever was read after it (a later publish may have succeeded).
    const unread = this.ownInFlight.delete(seq);
    const refused = this.refusedSends.delete(seq);
    const readBack = !unread && seq <= this.ownReadUpTo;
    const apply = !this.appliedAtOnce.has(seq) && !readBack;
    // Not one dropped from `ownInFlight` by its bound: it may never have been read, and a late copy beats none.
    if (apply || (readBack && seq > this.ownForgottenUpTo)) this.appliedAtOnce.set(seq, digestOf(event));
    if (!this.appliedAtOnce.has(seq)) return apply;
    this.sentMarks.delete(seq);
    this.queuedAfter.delete(seq);
    this.queuedAfter.set(seq, this.sentUpTo);
    // Sent (one never sent lies above every seq sent) and not refused: that send may yet be read back.
    if (seq <= this.sentUpTo && !refused) this.mayHaveLanded.add(seq);
    return apply;
  }

  /**
   * Redis answered this send of own event `seq` with an error reply, so it wrote nothing: the publish script's XADD is
   * its first write, and the script checks first what could fail after it (stream-protocol.ts). Told before the
   * failure reaches `applyOwnAtOnce`; a failure not told so is of unknown outcome (the link dropped, the answer lost),
   * and that send may still come back.
   */
  refused(seq: number): void {
    this.refusedSends.add(seq);
  }

  /** The highest own `seq` handed to Redis so far: a resend below it must go under a new one (see the bus's `send`). */
  get highestSent(): number {
    return this.sentUpTo;
  }

  /** This node hands its own event `seq` to Redis. */
  sending(seq: number, event: string): void {
    this.queuedAfter.delete(seq);
    this.refusedSends.delete(seq);
    if (this.appliedAtOnce.has(seq)) {
      this.sentMarks.delete(seq);
      this.sentMarks.add(seq);
    }
    this.sentUpTo = Math.max(this.sentUpTo, seq);
    this.ownInFlight.set(seq, digestOf(event));
    // Bounded: one never read back (trimmed before this node read it) would otherwise stay for good.
    if (this.ownInFlight.size <= MAX_OWN_IN_FLIGHT) return;
    const oldest = this.ownInFlight.keys().next().value!;
    this.ownInFlight.delete(oldest);
    this.ownForgottenUpTo = Math.max(this.ownForgottenUpTo, oldest);
  }

  /**
   * Own event `from` is resent as `to` (a later `seq`): if it was applied already, its copy as `to` must not be,
   * and neither must `from` if a publish of it did reach the stream after all. One never sent, or refused each time
   * it was, cannot come back as `from`: its mark moves to `to`, so marks count events, not the times Redis refused them.
   */
  restamp(from: number, to: number): void {
    this.queuedAfter.delete(from);
    const digest = this.appliedAtOnce.get(from);
    if (digest === undefined) return;
    this.appliedAtOnce.set(to, digest);
    this.sentMarks.add(to);
    if (this.mayHaveLanded.has(from)) this.sentMarks.add(from);
    else this.forget(from);
  }

  /** Own events applied whose copy from the stream may still come, or is queued to be sent (diagnostics, tests). */
  get awaitingOwn(): number {
    return this.appliedAtOnce.size;
  }

  /** Other nodes whose sequence numbers this ledger keeps (diagnostics, tests); at most `MAX_ORIGINS_REMEMBERED`. */
  get originsRemembered(): number {
    return this.lastRead.size;
  }

  /**
   * An entry in this node's name is one it sent (the same event under the same seq), a copy of the last one read
   * back, or one it cannot check (dropped from `ownInFlight` by its bound); anything else is refused and changes
   * nothing here. Taken as read back, it would make the own events it claims to be look like copies already applied.
   */
  private readOwn(entry: Written): Omit<Acceptance, 'gap'> {
    const { seq, digest } = entry;
    if (this.lastOwnRead?.seq === seq && this.lastOwnRead.digest === digest) {
      // A copy sent again: its resend may have been handed to Redis after the first copy was read.
      this.ownInFlight.delete(seq);
      return { apply: false };
    }
    const sent = this.ownInFlight.get(seq) === digest;
    const unchecked = !this.ownInFlight.has(seq) && seq <= this.ownForgottenUpTo && seq > this.ownReadUpTo;
    if (!sent && this.appliedAtOnce.get(seq) !== digest && !unchecked) return { apply: false, problem: { type: 'not_sent_by_this_node', seq } };
    this.ownInFlight.delete(seq);
    this.ownReadUpTo = Math.max(this.ownReadUpTo, seq);
    this.lastOwnRead = entry;
    const apply = !this.appliedAtOnce.has(seq);
    this.forgetAppliedUpTo(seq);
    return { apply };
  }

  /**
   * Another node's entry: new above the last seq read from it, a copy sent again when it repeats the last entry.
   * Anything else breaks the order its bus writes in; the ledger cannot tell which of the two entries was forged,
   * so it applies this one too (a change delivered twice, not one lost) and says so.
   */
  private readOther(origin: string, entry: Written): Omit<Acceptance, 'gap'> {
    const last = this.lastRead.get(origin);
    // Deleted and set again, so the map stays in order of last read and its first key is the one to forget.
    this.lastRead.delete(origin);
    this.lastRead.set(origin, entry);
    if (this.lastRead.size > MAX_ORIGINS_REMEMBERED) this.lastRead.delete(this.lastRead.keys().next().value!);
    if (last === undefined || entry.seq > last.seq) return { apply: true };
    if (entry.seq === last.seq && entry.digest === last.digest) return { apply: false };
    return { apply: true, problem: { type: 'out_of_sequence', origin, seq: entry.seq, after: last.seq } };
  }

  /**
   * A node sends its own events in `seq` order (its queue is sorted, a resend goes under a new `seq`), so once `read`
   * is read back, an own event sent below it that was not read never comes back under its `seq`. One queued to be
   * sent again comes back under the `seq` it is resent as, read after `read` (the later publish that went out while
   * its own failed): its mark stays, unless an own event sent after it was queued is read back. The flush that sent
   * that one would have sent it first: it was dropped, as its queue overflowed while Redis was away (every node was
   * told that everything changed). Forgotten, or a long outage would keep every one.
   */
  private forgetAppliedUpTo(read: number): void {
    for (const [seq, queuedAfter] of this.queuedAfter) {
      if (read <= queuedAfter) break;
      this.forget(seq);
    }
    for (const seq of this.sentMarks) {
      if (seq > read) break;
      // Sent and its outcome not back yet (the reader may hand back a later own event before the writer's refusal
      // of this one): a refusal makes it queued again, and applied already.
      if (!this.ownInFlight.has(seq)) this.forget(seq);
    }
  }

  /** Drops the mark of own event `seq`, wherever it is kept. */
  private forget(seq: number): void {
    this.appliedAtOnce.delete(seq);
    this.queuedAfter.delete(seq);
    this.sentMarks.delete(seq);
    this.mayHaveLanded.delete(seq);
  }
}
