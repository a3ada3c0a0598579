/**
 * The AT command driver over any duplex (ITU-T V.250): one command at a time, each with a
 * timeout; its answer is the information lines up to the final result code (OK, ERROR,
 * +CME ERROR, +CMS ERROR...). Unsolicited result codes (+CMTI, RING, +CLIP, +CREG, ^RSSI, RDY...)
 * may arrive before, after or between the lines of an answer: they go to `onUrc` and are never
 * taken as the answer (docs/modem.md §AT driver). The command's own echo (ATE1, or before ATE0
 * took effect) is recognised and skipped. No port inside: feed(bytes) in, write(text) out.
 */
import { VigilError } from '../../core/errors.js';
import { AtLineSplitter } from '../../protocols/at/lines.js';
import { finalResult, isSolicitedCreg, isTwoLineUrc, isUrcLine, type FinalResult } from '../../protocols/at/results.js';

export interface AtAnswer {
  /** Information text lines of the answer (echo and URCs removed). */
  readonly lines: string[];
  readonly final: FinalResult;
}

export interface SendOptions {
  /** The prefix of the command's information text, e.g. "+CSQ": such lines are its answer, not URCs. */
  readonly expect?: string;
  readonly timeoutMs?: number;
}

export interface AtDriverDeps {
  write(text: string): void;
  /** One URC: its line, plus the line that follows for two-line URCs (+CMT in PDU mode). */
  onUrc(lines: readonly string[]): void;
  readonly timeoutMs: number;
}

interface Pending {
  readonly text: string;
  readonly expect: string | null;
  readonly timeoutMs: number;
  readonly lines: string[];
  readonly resolve: (answer: AtAnswer) => void;
  readonly reject: (err: Error) => void;
  timer: NodeJS.Timeout | null;
}

export class AtDriver {
  readonly stats = { commands: 0, timeouts: 0, urcs: 0, echoes: 0, errors: 0 };
  private readonly deps: AtDriverDeps;
  private readonly splitter = new AtLineSplitter();
  private readonly queue: Pending[] = [];
  private current: Pending | null = null;
  /** A two-line URC waiting for its second line. */
  private urcHead: string | null = null;
  /** Round trip of the last answered command, ms. */
  lastRoundTripMs: number | null = null;
  private sentAt = 0;

  constructor(deps: AtDriverDeps) {
    this.deps = deps;
  }

  get overlongLines(): number {
    return this.splitter.overlong;
  }

  /** Queues a command ("AT+CSQ"); resolves with its answer (OK or an error code), rejects on timeout or close. */
  send(text: string, options: SendOptions = {}): Promise<AtAnswer> {
    return new Promise((resolve, reject) => {
      this.queue.push({
        text,
        expect: options.expect ?? null,
        timeoutMs: options.timeoutMs ?? this.deps.timeoutMs,
        lines: [],
        resolve,
        reject,
        timer: null,
      });
      if (!this.current) this.next();
    });
  }

  feed(chunk: Uint8Array): void {
    for (const line of this.splitter.push(chunk)) this.line(line);
  }

  /** The port closed: every queued command fails with `reason`; partial input is forgotten. */
  close(reason: string): void {
    const all = this.current ? [this.current, ...this.queue] : [...this.queue];
    this.queue.length = 0;
    this.current = null;
    this.urcHead = null;
    this.splitter.reset();
    for (const p of all) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(new VigilError('DEVICE_NOT_CONNECTED', reason));
    }
  }

  get busy(): boolean {
    return this.current !== null;
  }

  private next(): void {
    const p = this.queue.shift();
    if (!p) return;
    this.current = p;
    this.stats.commands++;
    p.timer = setTimeout(() => this.timedOut(p), p.timeoutMs);
    this.sentAt = performance.now();
    try {
      this.deps.write(`${p.text}\r`);
    } catch (err) {
      this.finish(p);
      p.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private timedOut(p: Pending): void {
    if (this.current !== p) return;
    this.stats.timeouts++;
    this.finish(p);
    p.reject(new VigilError('DEVICE_TIMEOUT', `no answer to ${p.text} within ${p.timeoutMs} ms`));
  }

  private finish(p: Pending): void {
    if (p.timer) clearTimeout(p.timer);
    p.timer = null;
    if (this.current === p) this.current = null;
    // The next command goes out after this turn, so a caller's follow-up can queue behind it in order.
    queueMicrotask(() => {
      if (!this.current) this.next();
    });
  }

  private line(line: string): void {
    if (this.urcHead !== null) {
      const head = this.urcHead;
      this.urcHead = null;
      this.urc([head, line]);
      return;
    }
    const p = this.current;
    if (p && line.toUpperCase() === p.text.toUpperCase()) {
      this.stats.echoes++;
      return;
    }
    const final = finalResult(line);
    // NO CARRIER and the like with no command waiting: a call ended, a URC.
    if (final && p) {
      this.finish(p);
      this.lastRoundTripMs = performance.now() - this.sentAt;
      if (!final.ok) this.stats.errors++;
      p.resolve({ lines: p.lines, final });
      return;
    }
    if (p && p.expect !== null && line.startsWith(`${p.expect}:`) && (p.expect !== '+CREG' || isSolicitedCreg(line))) {
      p.lines.push(line);
      return;
    }
    if (isUrcLine(line) || !p || final) {
      if (isTwoLineUrc(line)) this.urcHead = line;
      else this.urc([line]);
      return;
    }
    p.lines.push(line);
  }

  private urc(lines: string[]): void {
    this.stats.urcs++;
    this.deps.onUrc(lines);
  }
}
