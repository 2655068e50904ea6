// The spinner a person sees on stderr while ship waits for something slow: an answer from the service, a large
// CSV file being checked. Shown only after a short delay (a quick answer shows nothing), only to a person at a
// terminal (never in --json, --quiet, CI or off a terminal), and never over other live output: bulk progress
// bars, prompts and redrawn screens suspend it. Drawn with ora, loaded the first time a spinner is shown.
import type { Writable } from 'node:stream';

/** The part of an ora spinner used here. */
export interface SpinnerLike {
  text: string;
  start(): unknown;
  stop(): unknown;
}

/** Makes a spinner writing to `stream` (ora in the binary; a fake in tests). */
export type SpinnerFactory = (opts: { stream: Writable; text: string }) => SpinnerLike;

/** Options of WaitIndicator. */
export interface WaitIndicatorOptions {
  stream: Writable;
  /** A person is at a terminal and wants talk on stderr (the caller decides, from the output mode). */
  enabled: boolean;
  /** How long a wait lasts before the spinner appears (default 300 ms). */
  delayMs?: number;
  /** Loads the spinner maker (default: ora). */
  load?: () => Promise<SpinnerFactory>;
}

/** Shows a spinner while waits are open; see the header comment. */
export class WaitIndicator {
  readonly enabled: boolean;
  private readonly stream: Writable;
  private readonly delayMs: number;
  private readonly load: () => Promise<SpinnerFactory>;
  private open = 0;
  private suspended = 0;
  private text = '';
  private timer: NodeJS.Timeout | undefined;
  private spinner: SpinnerLike | undefined;
  private factory: SpinnerFactory | undefined;
  private loading: Promise<void> | undefined;
  private closed = false;

  constructor(opts: WaitIndicatorOptions) {
    this.enabled = opts.enabled;
    this.stream = opts.stream;
    this.delayMs = opts.delayMs ?? 300;
    this.load = opts.load ?? loadOra;
  }

  /**
   * A wait begins, described by `text`; returns its end (idempotent). The spinner shows while any is open.
   * `likelyLong` (a large file being checked) loads the spinner at once instead of when it is due: loading a
   * module needs turns of the event loop, which a busy main thread gives only now and then, so a spinner loaded
   * only when due could arrive after the work it was meant to show.
   */
  begin(text: string, opts: { likelyLong?: boolean } = {}): () => void {
    if (!this.enabled || this.closed) return noop;
    if (opts.likelyLong) void this.loadFactory();
    this.open++;
    this.setText(text);
    this.arm();
    return once(() => {
      this.open--;
      if (this.open === 0) this.hide();
    });
  }

  /** New text for the waits in progress (e.g. how many rows were checked so far). */
  update(text: string): void {
    if (!this.enabled || this.open === 0) return;
    this.setText(text);
  }

  /** Nothing is shown until the returned function is called (a progress bar, a prompt, a redrawn screen). */
  suspend(): () => void {
    if (!this.enabled) return noop;
    this.suspended++;
    this.hide();
    return once(() => {
      this.suspended--;
      this.arm();
    });
  }

  /** Stops for good (the command is over, or the process is about to exit): the spinner's line is cleared. */
  close(): void {
    this.closed = true;
    this.open = 0;
    this.hide();
  }

  private setText(text: string): void {
    this.text = text;
    if (this.spinner) this.spinner.text = text;
  }

  /** Shows the spinner `delayMs` from now if a wait is still open then (and nothing suspends it). */
  private arm(): void {
    if (this.open === 0 || this.suspended > 0 || this.spinner || this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.show();
    }, this.delayMs);
    // A wait that outlives the command (it never should) must not keep the process alive.
    this.timer.unref();
  }

  private loadFactory(): Promise<void> {
    this.loading ??= this.load().then(
      (f) => {
        this.factory = f;
      },
      () => {
        // No spinner rather than no command: the spinner is a courtesy.
        this.factory = () => noSpinner('');
      },
    );
    return this.loading;
  }

  private async show(): Promise<void> {
    if (!this.factory) await this.loadFactory();
    if (this.open === 0 || this.suspended > 0 || this.spinner || this.closed) return;
    this.spinner = this.factory!({ stream: this.stream, text: this.text });
    this.spinner.start();
  }

  private hide(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const s = this.spinner;
    this.spinner = undefined;
    s?.stop();
  }
}

function noop(): void {
  // nothing to end
}

/** `fn` for the first call only: an end (or a resume) called twice counts once. */
function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}

/**
 * ora, set up for a wait: on the given stream, without hiding the cursor or taking over stdin (both would install
 * handlers of process signals and input that main.ts and the prompts own).
 */
async function loadOra(): Promise<SpinnerFactory> {
  const { default: ora } = await import('ora');
  return ({ stream, text }) => {
    const ws = stream as NodeJS.WriteStream;
    // A terminal that reports no width (0 columns: `script` with stdin not a terminal, `docker run -t` before its
    // first resize) would make ora count its lines as width / 0 and clear lines forever, so the command never
    // ends. No spinner rather than no command.
    if (ws.isTTY && !(ws.columns > 0)) return noSpinner(text);
    return ora({ stream: ws, text, isEnabled: true, hideCursor: false, discardStdin: false });
  };
}

/** A spinner that draws nothing. */
function noSpinner(text: string): SpinnerLike {
  return { text, start: noop, stop: noop };
}
