/**
 * What one legacy HTTP SSE stream (a session's GET stream, or a POST's response stream) wrote lately, so a client that
 * reconnects with `Last-Event-ID` gets what it missed (2025-11-25,
 * "Resumability and Redelivery"). Every frame written to the stream gets the
 * next event id (`g<n>`, unique within the session, the stream named by its
 * `g`) and is kept, up to `maxEvents` frames, `maxBytes` UTF-8 bytes and
 * `maxAgeMs` old; older frames are dropped. A `Last-Event-ID` older than the
 * oldest kept frame (or not one of ours) is a gap the buffer cannot fill:
 * `since` answers undefined and the session tells its client that everything
 * may have changed instead.
 */

interface Kept {
  seq: number;
  frame: string;
  bytes: number;
  at: number;
}

/** Bounds of one session's replay buffer (the server limits `replayEvents`, `replayBytes`, `replayAgeMs`). */
export interface ReplayBounds {
  maxEvents: number;
  maxBytes: number;
  maxAgeMs: number;
}

const SEQ = /^(0|[1-9][0-9]{0,15})$/;

export class ReplayBuffer {
  private kept: Kept[] = [];
  private head = 0;
  private bytes = 0;
  /** The last event id handed out (0: none yet). */
  private seq = 0;

  constructor(
    private readonly bounds: ReplayBounds,
    private readonly now: () => number = Date.now,
    /** What every id of this stream starts with: `g` for the GET stream, `p<n>-` for POST response stream n. */
    readonly stream = 'g',
  ) {}

  /** The id of the last frame written, to prime a new stream with. */
  get lastId(): string {
    return `${this.stream}${this.seq}`;
  }

  /** Frames `json` as an SSE event with the next id, keeps it, and returns the frame. */
  frame(json: string): string {
    const frame = `id: ${this.stream}${++this.seq}\nevent: message\ndata: ${json}\n\n`;
    if (this.bounds.maxEvents > 0) {
      const bytes = Buffer.byteLength(frame);
      this.kept.push({ seq: this.seq, frame, bytes, at: this.now() });
      this.bytes += bytes;
      this.trim();
    }
    return frame;
  }

  /**
   * The frames written after `lastEventId`, in order, joined; '' when there
   * are none; undefined when the buffer cannot tell (a gap: frames after that
   * id were dropped, or the id is not one this session handed out).
   */
  since(lastEventId: string): string | undefined {
    // Another stream's id is a gap too: a replay never mixes streams.
    const match = lastEventId.startsWith(this.stream) ? SEQ.exec(lastEventId.slice(this.stream.length)) : null;
    if (!match) return undefined;
    const last = Number(match[1]);
    if (last > this.seq) return undefined;
    this.trim();
    const oldest = this.head < this.kept.length ? this.kept[this.head]!.seq : this.seq + 1;
    if (last + 1 < oldest) return undefined;
    let out = '';
    for (let i = this.head; i < this.kept.length; i++) if (this.kept[i]!.seq > last) out += this.kept[i]!.frame;
    return out;
  }

  private trim(): void {
    const oldestAllowed = this.now() - this.bounds.maxAgeMs;
    while (this.head < this.kept.length) {
      const first = this.kept[this.head]!;
      const count = this.kept.length - this.head;
      if (count <= this.bounds.maxEvents && this.bytes <= this.bounds.maxBytes && first.at >= oldestAllowed) break;
      this.bytes -= first.bytes;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.kept.length) {
      this.kept = this.kept.slice(this.head);
      this.head = 0;
    }
  }
}
