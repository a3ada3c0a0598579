/**
 * `vigil sim --serial PATH`: one transmitter on a serial line (docs/simulator.md §Serial). It sends DC-09 frames (an
 * alarm panel on a COM line) or MLR2 computer-port lines (a legacy receiver feeding its automation computer), waits
 * for each answer, resends on silence or NAK, and counts. Bounded: `events` messages, at most `durationMs`.
 *
 * A pseudo-terminal has no baud rate (bytes cross at memory speed), so with `emulateBaud` both directions are paced as
 * a real line would carry them: a message occupies the wire for bytes x bits-per-character / baud, and a reply is
 * seen only once its last byte would have arrived. bench/serial.ts measures wire-speed fractions that way.
 */
import type { SerialLine } from '../core/serial.js';
import { Dc09Framer, buildMessage, parseReply } from '../protocols/dc09/index.js';
import { HEARTBEAT, encodeContactId } from '../protocols/mlr2/codec.js';

export interface SerialSimOptions {
  readonly protocol: 'SIA-DC09' | 'MLR2';
  /** Messages to deliver (each counted once however often it is resent). */
  readonly events: number;
  readonly token: 'SIA-DCS' | 'ADM-CID';
  /** DC-09: 3..16 hex digits; MLR2 Contact ID: 4 hex digits. */
  readonly account: string;
  readonly key: Buffer | null;
  /** DC-09 frames awaiting their answer at once (MLR2 is one at a time by its protocol). */
  readonly window: number;
  readonly ackTimeoutMs: number;
  readonly retries: number;
  /** Messages per second; null sends the next as soon as the window allows. */
  readonly ratePerS: number | null;
  /** Pace both directions at this wire speed (for ptys); null when the device is a real UART. */
  readonly emulateBaud: number | null;
  /** Start + data + parity + stop bits of one character (10 for 8N1). */
  readonly bitsPerChar: number;
  /** MLR2: a heartbeat after this long without a message (0 = none). */
  readonly heartbeatMs: number;
  readonly durationMs: number;
}

export interface SerialSimSummary {
  protocol: string;
  events_sent: number;
  events_acked: number;
  events_failed: number;
  naks: number;
  retransmissions: number;
  heartbeats: number;
  elapsed_s: number;
  events_per_s: number;
  bytes_out: number;
  /** Share of the wire's capacity (sending direction) the ACKed messages used; null without emulateBaud. */
  wire_fraction: number | null;
}

interface Pending {
  readonly key: string;
  readonly bytes: Buffer;
  attempts: number;
  timer: NodeJS.Timeout | null;
  heartbeat: boolean;
}

export class SerialSimulator {
  private readonly line: SerialLine;
  private readonly o: SerialSimOptions;
  private readonly framer = new Dc09Framer();
  private readonly pending: Pending[] = [];
  private readonly stats: SerialSimSummary;
  private next = 0;
  private txFreeAt = 0;
  private rxFreeAt = 0;
  private ackedBytes = 0;
  private startedAt = 0;
  private lastSendAt = 0;
  private done: (() => void) | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(line: SerialLine, options: SerialSimOptions) {
    this.line = line;
    this.o = options;
    this.stats = {
      protocol: options.protocol,
      events_sent: 0,
      events_acked: 0,
      events_failed: 0,
      naks: 0,
      retransmissions: 0,
      heartbeats: 0,
      elapsed_s: 0,
      events_per_s: 0,
      bytes_out: 0,
      wire_fraction: null,
    };
  }

  /** Sends everything (the line must be open), waits for the answers, resolves with the figures. */
  async run(): Promise<SerialSimSummary> {
    const off = this.line.on('data', (chunk) => this.received(chunk));
    this.startedAt = this.lastSendAt = Date.now();
    const finished = new Promise<void>((resolve) => (this.done = resolve));
    this.later(() => this.finish(), this.o.durationMs);
    if (this.o.heartbeatMs > 0) this.heartbeatLoop();
    this.pump();
    await finished;
    off();
    const elapsedMs = Math.max(1, Date.now() - this.startedAt);
    const s = this.stats;
    s.elapsed_s = Math.round(elapsedMs) / 1000;
    s.events_per_s = Math.round((s.events_acked / elapsedMs) * 100_000) / 100;
    if (this.o.emulateBaud)
      s.wire_fraction =
        Math.round(((this.ackedBytes * this.o.bitsPerChar) / this.o.emulateBaud / (elapsedMs / 1000)) * 1000) / 1000;
    return { ...s };
  }

  stop(): void {
    this.finish();
  }

  private finish(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const p of this.pending) if (p.timer) clearTimeout(p.timer);
    this.done?.();
  }

  private pump(): void {
    if (this.stopped) return;
    const window = this.o.protocol === 'MLR2' ? 1 : Math.max(1, this.o.window);
    while (this.next < this.o.events && this.pending.length < window) {
      if (this.o.ratePerS !== null) {
        const due = this.startedAt + (this.next * 1000) / this.o.ratePerS;
        if (Date.now() < due) {
          this.later(() => this.pump(), due - Date.now());
          return;
        }
      }
      this.send(this.message(this.next++), false);
      this.stats.events_sent++;
    }
    if (this.next >= this.o.events && this.pending.length === 0) this.finish();
  }

  private message(n: number): { key: string; bytes: Buffer } {
    if (this.o.protocol === 'MLR2') {
      const zone = String((n % 999) + 1).padStart(3, '0');
      const r = encodeContactId(
        { receiver: 1, line: 1 },
        { account: this.o.account, qualifier: 'E', code: '130', group: '01', zone },
      );
      if (!r.ok) throw new Error(`MLR2 message: ${r.reason}`);
      return { key: String(n), bytes: r.bytes };
    }
    const sequence = (n % 9999) + 1;
    const zone = String((n % 999) + 1).padStart(3, '0');
    const data =
      this.o.token === 'ADM-CID' ? `#${this.o.account}|1130 01 ${zone}` : `#${this.o.account}|Nri1/BA${zone}`;
    const bytes = buildMessage({
      token: this.o.token,
      sequence,
      receiver: 1,
      line: 1,
      account: this.o.account,
      data,
      timestamp: Date.now(),
      key: this.o.key,
    });
    return { key: String(sequence).padStart(4, '0'), bytes };
  }

  private send(message: { key: string; bytes: Buffer }, heartbeat: boolean): void {
    const p: Pending = { key: message.key, bytes: message.bytes, attempts: 0, timer: null, heartbeat };
    this.pending.push(p);
    this.transmit(p);
  }

  /** Onto the wire when it is free; delivered, and the answer awaited, from the moment its last byte arrived. */
  private transmit(p: Pending): void {
    p.attempts++;
    const now = Date.now();
    const wireMs = this.o.emulateBaud ? (p.bytes.length * this.o.bitsPerChar * 1000) / this.o.emulateBaud : 0;
    const start = Math.max(now, this.txFreeAt);
    this.txFreeAt = start + wireMs;
    this.lastSendAt = start;
    const write = (): void => {
      if (this.stopped) return;
      this.stats.bytes_out += p.bytes.length;
      this.line.write(p.bytes);
    };
    // The far end can decide a message only once its last byte has crossed the wire: hand it over then.
    if (this.txFreeAt > now) this.later(write, this.txFreeAt - now);
    else write();
    p.timer = this.later(() => this.timedOut(p), this.txFreeAt - now + this.o.ackTimeoutMs);
  }

  private timedOut(p: Pending): void {
    if (!this.pending.includes(p)) return;
    if (p.attempts <= this.o.retries) {
      this.stats.retransmissions++;
      this.transmit(p);
      return;
    }
    this.settle(p, false);
  }

  private received(chunk: Buffer): void {
    if (!this.o.emulateBaud) {
      this.answer(chunk);
      return;
    }
    // The reply is complete only once its last byte would have crossed the wire.
    const now = Date.now();
    this.rxFreeAt = Math.max(now, this.rxFreeAt) + (chunk.length * this.o.bitsPerChar * 1000) / this.o.emulateBaud;
    this.later(() => this.answer(chunk), this.rxFreeAt - now);
  }

  private answer(chunk: Buffer): void {
    if (this.stopped) return;
    if (this.o.protocol === 'MLR2') {
      for (const byte of chunk) {
        const head = this.pending[0];
        if (!head) break;
        if (byte === 0x06) this.settle(head, true);
        else if (byte === 0x15) this.nak(head);
      }
      return;
    }
    for (const item of this.framer.push(chunk)) {
      if (item.kind !== 'frame') continue;
      const reply = parseReply(item.body, this.o.key);
      const p = reply && this.pending.find((x) => x.key === reply.sequence);
      if (!reply || !p) continue;
      if (reply.kind === 'ACK') this.settle(p, true);
      else this.nak(p);
    }
  }

  private nak(p: Pending): void {
    this.stats.naks++;
    if (p.timer) clearTimeout(p.timer);
    if (p.attempts <= this.o.retries) {
      this.stats.retransmissions++;
      this.transmit(p);
    } else {
      this.settle(p, false);
    }
  }

  private settle(p: Pending, acked: boolean): void {
    const at = this.pending.indexOf(p);
    if (at < 0) return;
    this.pending.splice(at, 1);
    if (p.timer) clearTimeout(p.timer);
    if (p.heartbeat) {
      if (acked) this.stats.heartbeats++;
    } else if (acked) {
      this.stats.events_acked++;
      this.ackedBytes += p.bytes.length;
    } else {
      this.stats.events_failed++;
    }
    this.pump();
  }

  private heartbeatLoop(): void {
    this.later(
      () => {
        if (this.pending.length === 0 && Date.now() - this.lastSendAt >= this.o.heartbeatMs)
          this.send({ key: 'hb', bytes: HEARTBEAT }, true);
        this.heartbeatLoop();
      },
      Math.min(this.o.heartbeatMs, 1000),
    );
  }

  private later(fn: () => void, ms: number): NodeJS.Timeout {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (!this.stopped) fn();
      },
      Math.max(0, ms),
    );
    this.timers.add(timer);
    return timer;
  }
}
