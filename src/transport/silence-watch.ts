/**
 * Whether a server-sent stream has gone silent: a path that a proxy or load
 * balancer lost can stay open and carry nothing, for ever. A stream is judged
 * only once its server has shown that it sends keep-alive comments; from
 * then on, a whole window with nothing at all arriving (no comment, no
 * event) is silence. The legacy GET stream uses it (legacy-get-stream.ts); a
 * modern listen stream's rule is its machine's (subscription.machine.ts).
 */

/**
 * Default stall window: four times the 15 s keep-alive interval that both the official server and ours use by
 * default, so a stream is judged only after it missed at least three keep-alives in a row.
 */
export const DEFAULT_STALL_AFTER_MS = 60_000;

/** Watches one stream; `stop()` once it ends. `windowMs` 0 never judges. */
export class SilenceWatch {
  #heard = false;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly windowMs: number,
    private readonly onSilent: () => void,
  ) {}

  /** Something arrived (an event or a comment). One boolean write: it runs for every frame. */
  heard(): void {
    this.#heard = true;
  }

  /** A keep-alive comment arrived: from the first one on, every window is judged. */
  keepAlive(): void {
    this.#heard = true;
    if (this.#timer !== undefined || this.windowMs <= 0) return;
    this.#timer = setInterval(() => this.#judge(), this.windowMs);
    // A watch never keeps a process alive: the stream it watches does, while it is open.
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #judge(): void {
    if (this.#heard) {
      this.#heard = false;
      return;
    }
    this.stop();
    this.onSilent();
  }
}
