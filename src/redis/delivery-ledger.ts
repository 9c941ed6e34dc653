/**
 * What one node has read from the shared stream, and what it may apply. Every
 * entry carries the stream-wide ordinal the publish script gave it, so a
 * missing ordinal is a gap the node can prove; and its origin node and that
 * node's sequence number, so an entry is applied once even when a publish of
 * unknown outcome was sent again, or its own event was applied at once while
 * Redis was away. Pure bookkeeping: no I/O.
 */

/** The position a node resumes from: the stream's generation, the last ordinal and entry id seen. */
export interface StreamPosition {
  epoch: string;
  ordinal: number;
  id: string;
}

/** One entry as read: its stream id and ordinal, its origin node and sequence number. */
export interface EntryHeader {
  id: string;
  ordinal: number;
  origin: string;
  seq: number;
}

/**
 * What reading an entry means: `gap` before it (resync first), and whether to apply it; `refused` says why a
 * well-formed entry is not applied because no bus could have written it (to be reported, not passed over silently).
 */
export interface Acceptance {
  gap: boolean;
  apply: boolean;
  refused?: string;
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
const MAX_OWN_IN_FLIGHT = 10_000;

export class DeliveryLedger {
  private position: StreamPosition | undefined;
  /** Own events applied while Redis was away; skipped when they come back from the stream. */
  private readonly appliedAtOnce = new Set<number>();
  /** Own events handed to Redis and not read back yet, oldest first: one whose publish fails is still unapplied. */
  private readonly ownInFlight = new Set<number>();
  /** Highest own sequence number read back from the stream. */
  private ownReadUpTo = 0;
  /** Highest own sequence number handed to Redis: an entry in this node's name above it was written by someone else. */
  private ownSentUpTo = 0;
  /** Highest sequence number read per other origin, least recently read first: a resent copy is at or below it. */
  private readonly readUpTo = new Map<string, number>();

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
   * deleted) or an ordinal that went backwards is a gap, and the node adopts
   * the head too. Otherwise it reads on from where it was.
   */
  reconcile(head: StreamPosition): 'first' | 'continuous' | 'gap' {
    const known = this.position;
    if (known === undefined || known.epoch !== head.epoch || head.ordinal < known.ordinal) {
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
    // Taken as read back, it would raise ownReadUpTo past every seq this node is yet to send, and each of its own
    // events would then look like a copy already applied: the node would go silent.
    if (entry.origin === this.nodeId && entry.seq > this.ownSentUpTo) {
      return { gap, apply: false, refused: `it names this node as its origin with seq ${entry.seq}, which this node never sent` };
    }
    return { gap, apply: this.firstCopy(entry) };
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
   * applying it again would deliver it twice.
   */
  applyOwnAtOnce(seq: number): boolean {
    // Sent and not read back: its publish failed, whatever was read after it (a later publish may have succeeded).
    const unread = this.ownInFlight.delete(seq);
    if (!unread && seq <= this.ownReadUpTo) return false;
    this.appliedAtOnce.add(seq);
    return true;
  }

  /** This node hands its own event `seq` to Redis. */
  sending(seq: number): void {
    this.ownSentUpTo = Math.max(this.ownSentUpTo, seq);
    this.ownInFlight.add(seq);
    // Bounded: one never read back (trimmed before this node read it) would otherwise stay for good.
    if (this.ownInFlight.size > MAX_OWN_IN_FLIGHT) this.ownInFlight.delete(this.ownInFlight.values().next().value!);
  }

  /** Own event `from` is resent as `to` (a later `seq`): if it was applied at once, its copy as `to` must not be. */
  restamp(from: number, to: number): void {
    if (!this.appliedAtOnce.delete(from)) return;
    this.appliedAtOnce.add(to);
  }

  /** Own events applied at once whose copy from the stream has not been read, and may still come (diagnostics, tests). */
  get awaitingOwn(): number {
    return this.appliedAtOnce.size;
  }

  /** Other nodes whose sequence numbers this ledger keeps (diagnostics, tests); at most `MAX_ORIGINS_REMEMBERED`. */
  get originsRemembered(): number {
    return this.readUpTo.size;
  }

  private firstCopy(entry: EntryHeader): boolean {
    if (entry.origin === this.nodeId) {
      this.ownInFlight.delete(entry.seq);
      const before = this.ownReadUpTo;
      this.ownReadUpTo = Math.max(before, entry.seq);
      const appliedAlready = this.appliedAtOnce.has(entry.seq);
      this.forgetAppliedUpTo(entry.seq);
      return !appliedAlready && entry.seq > before;
    }
    const before = this.readUpTo.get(entry.origin) ?? 0;
    // Deleted and set again, so the map stays in order of last read and its first key is the one to forget.
    this.readUpTo.delete(entry.origin);
    this.readUpTo.set(entry.origin, Math.max(before, entry.seq));
    if (this.readUpTo.size > MAX_ORIGINS_REMEMBERED) this.readUpTo.delete(this.readUpTo.keys().next().value!);
    return entry.seq > before;
  }

  /**
   * A node publishes its own events in `seq` order (its queue is sorted), so once `seq` is read back, an own event
   * applied at once below it that was not read will never be: its queue overflowed while Redis was away and was
   * dropped (every node was told that everything changed). Forgotten, or a long outage would keep every one.
   */
  private forgetAppliedUpTo(seq: number): void {
    // Added in increasing order, so the set iterates in it.
    for (const applied of this.appliedAtOnce) {
      if (applied > seq) return;
      this.appliedAtOnce.delete(applied);
    }
  }
}
