/**
 * The ledger's marks of own events under the bus's real orders of calls, driven at random
 * (seeded, so a failure replays) against a model of the writer (answers in order), Redis (executes in order) and the
 * stream, checking that every own event reaches the node's clients exactly once and that no mark outlives the reads.
 */
import { describe, expect, it } from 'vitest';
import { DeliveryLedger } from '../../src/redis/delivery-ledger.ts';
import { seededRandom } from '../setup/seeded-random.ts';

type Outcome = 'written' | 'refused';
interface Send {
  seq: number;
  payload: string;
  outcome?: Outcome;
}

/** One node's bus as src/redis/redis-bus.ts and machines/redis-bus.machine.ts drive its ledger. */
class Sim {
  readonly ledger = new DeliveryLedger('self');
  readonly delivered = new Map<string, number>();
  readonly stream: Array<{ seq: number; payload: string }> = [];
  readonly trace: string[] = [];
  readonly problems: unknown[] = [];
  private read = 0;
  private seq = 0;
  private events = 0;
  private state: 'live' | 'disconnected' = 'live';
  private queue: Array<{ seq: number; payload: string }> = [];
  private pending: Send[] = [];
  /** Sends that failed unanswered but that Redis has yet to execute (received on the old link, run late). */
  private zombies: Send[] = [];
  private dropped = 0;
  announcements = 0;

  static readonly ANNOUNCEMENT = '{"type":"everything_changed"}';

  constructor(private readonly maxQueued: number) {
    this.ledger.reconcile({ epoch: 'e', ordinal: 0, id: '0-0' });
  }

  private deliver(payload: string): void {
    this.delivered.set(payload, (this.delivered.get(payload) ?? 0) + 1);
  }

  publish(): void {
    const entry = { seq: ++this.seq, payload: `{"type":"resource_updated","uri":"test://${++this.events}"}` };
    this.delivered.set(entry.payload, 0);
    this.trace.push(`publish ${entry.seq} (${this.state})`);
    if (this.state === 'live') this.send(entry);
    else if (this.queueFull) {
      this.deliver(entry.payload);
      this.dropQueue();
    } else this.failedOrQueued(entry);
  }

  private get queueFull(): boolean {
    return this.dropped > 0 || this.queue.length >= this.maxQueued;
  }

  private dropQueue(): void {
    this.trace.push(`queue dropped (${this.queue.length})`);
    this.dropped += this.queue.length + 1;
    this.queue = [];
  }

  private send(queued: { seq: number; payload: string }): void {
    let entry = queued;
    if (entry.seq < this.ledger.highestSent) {
      entry = { seq: ++this.seq, payload: queued.payload };
      this.trace.push(`restamp ${queued.seq} -> ${entry.seq}`);
      this.ledger.restamp(queued.seq, entry.seq);
    }
    this.trace.push(`sending ${entry.seq}`);
    this.ledger.sending(entry.seq, entry.payload);
    this.pending.push({ ...entry });
  }

  /** `apply_locally` then `enqueueApplied` (sorted by seq). */
  private failedOrQueued(entry: { seq: number; payload: string }): void {
    if (this.ledger.applyOwnAtOnce(entry.seq, entry.payload)) this.deliver(entry.payload);
    this.queue = [...this.queue, entry].sort((a, b) => a.seq - b.seq);
  }

  /** Redis executes the oldest command not executed yet. */
  execute(random: () => number): void {
    const next = this.pending.find((send) => send.outcome === undefined);
    if (!next) return;
    // What the old link carried runs before anything sent later, or never: a node's entries keep its send order.
    this.settleZombies(random);
    const roll = random();
    next.outcome = roll < 0.6 ? 'written' : 'refused';
    if (next.outcome === 'written') this.stream.push({ seq: next.seq, payload: next.payload });
    this.trace.push(`redis executes ${next.seq}: ${next.outcome}`);
  }

  /** The writer hands back the oldest answer. */
  answer(): void {
    const first = this.pending[0];
    if (!first || first.outcome === undefined) return;
    this.pending.shift();
    this.trace.push(`answer ${first.seq}: ${first.outcome}`);
    if (first.outcome === 'written') return;
    this.ledger.refused(first.seq);
    this.failed(first);
  }

  private failed(entry: Send): void {
    this.trace.push(`publish.failed ${entry.seq}`);
    this.state = 'disconnected';
    if (this.queueFull) {
      if (this.ledger.applyOwnAtOnce(entry.seq, entry.payload)) this.deliver(entry.payload);
      this.dropQueue();
    } else this.failedOrQueued({ seq: entry.seq, payload: entry.payload });
  }

  /** The oldest send that failed unanswered and was not run yet is run now after all. */
  zombie(): void {
    const send = this.zombies.shift();
    if (!send) return;
    this.stream.push({ seq: send.seq, payload: send.payload });
    this.trace.push(`redis runs late ${send.seq}`);
  }

  /** Before a later send runs: each left on the old link runs now, or is lost for good. */
  private settleZombies(random: () => number): void {
    while (this.zombies.length > 0) {
      if (random() < 0.5) this.zombie();
      else this.trace.push(`lost for good ${this.zombies.shift()!.seq}`);
    }
  }

  /**
   * The link drops: the commands written to it fail unanswered (a written one Redis has not run yet may still run,
   * late); those the client had not written yet wait for the next link (node-redis's offline queue).
   */
  drop(random: () => number): void {
    this.trace.push('link lost');
    this.state = 'disconnected';
    // Those written to the socket fail (the executed ones first); those the client had not written yet wait.
    const executed = this.pending.filter((send) => send.outcome !== undefined).length;
    const written = executed + Math.floor(random() * (this.pending.length - executed + 1));
    const failed = this.pending.slice(0, written);
    this.pending = this.pending.slice(written);
    for (const send of failed) {
      if (send.outcome === undefined && random() < 0.3) this.zombies.push(send);
      this.failed(send);
    }
  }

  readOne(): void {
    if (this.read >= this.stream.length) return;
    const entry = this.stream[this.read++]!;
    const acceptance = this.ledger.accept({ id: `${this.read}-0`, ordinal: this.read, origin: 'self', seq: entry.seq, event: entry.payload });
    this.trace.push(`read ${entry.seq} -> ${JSON.stringify(acceptance)}`);
    if (acceptance.problem) this.problems.push(acceptance.problem);
    if (acceptance.apply) this.deliver(entry.payload);
  }

  tailOnce(): void {
    if (this.state === 'live') this.readOne();
  }

  /** catching_up reads the backlog, then `live` flushes the queue. */
  reconnect(): void {
    if (this.state === 'live') return;
    this.trace.push('catching up');
    while (this.read < this.stream.length) this.readOne();
    this.state = 'live';
    const queue = this.queue;
    this.queue = [];
    if (this.dropped > 0) {
      this.dropped = 0;
      this.announcements++;
      this.trace.push('announce');
      this.send({ seq: ++this.seq, payload: Sim.ANNOUNCEMENT });
    } else for (const entry of queue) this.send(entry);
  }

  /** Redis behaves from now on: everything goes out, is answered and read back. */
  settle(): void {
    for (let round = 0; round < 100 && (this.pending.length > 0 || this.queue.length > 0 || this.state !== 'live' || this.read < this.stream.length); round++) {
      this.reconnect();
      if (this.pending.some((send) => send.outcome === undefined)) this.settleZombies(() => 0);
      for (const send of this.pending) {
        if (send.outcome === undefined) {
          send.outcome = 'written';
          this.stream.push({ seq: send.seq, payload: send.payload });
        }
      }
      while (this.pending.length > 0) this.answer();
      while (this.read < this.stream.length) this.readOne();
    }
  }
}

function run(seed: number, steps: number, maxQueued: number): Sim {
  const random = seededRandom(seed);
  const sim = new Sim(maxQueued);
  for (let step = 0; step < steps; step++) {
    const roll = random();
    if (roll < 0.25) sim.publish();
    else if (roll < 0.45) sim.execute(random);
    else if (roll < 0.65) sim.answer();
    else if (roll < 0.85) sim.tailOnce();
    else if (roll < 0.91) sim.reconnect();
    else if (roll < 0.96) sim.drop(random);
    else sim.zombie();
  }
  sim.settle();
  // One more own event read back: every mark of an event sent before it is due to go.
  sim.publish();
  sim.settle();
  return sim;
}

/** What went wrong in one run: events delivered other than once, marks left once everything was read back. */
function faults(sim: Sim): { wrong: Array<[string, number]>; marks: number; problems: unknown[] } {
  const wrong = [...sim.delivered].filter(([payload, count]) => count !== (payload === Sim.ANNOUNCEMENT ? sim.announcements : 1));
  return { wrong, marks: sim.ledger.awaitingOwn, problems: sim.problems };
}

describe('delivery ledger review: random bus orders', () => {
  for (const maxQueued of [1_000, 2]) {
    it(`delivers every own event exactly once and keeps no mark once all is read back (maxQueued ${maxQueued})`, () => {
      for (let seed = 1; seed <= 3000; seed++) {
        const sim = run(seed, 80, maxQueued);
        const { wrong, marks, problems } = faults(sim);
        // Every entry in its name is one it wrote: none is to be reported as not sent by it.
        if (wrong.length > 0 || marks !== 0 || problems.length > 0) expect({ seed, wrong, marks, problems, trace: sim.trace }).toBeUndefined();
      }
    });
  }
});
