/**
 * An alarm panel on a DC-09 TCP link for end-to-end tests: it keeps one ADM-CID event in flight,
 * as real panels do, and records the events the gateway ACKed. Event n (1, 2, ...) carries n in its
 * Contact ID group and zone (group n / 1000, zone n % 1000), so a journal row or a forwarded line
 * names it (`eventNumber`). An ACK counts only when it names the sequence in flight, so a late ACK
 * of a resend cannot pass for the next event's. With `resendMs` an unanswered event is sent again
 * (same sequence) until it is ACKed, as a panel retries.
 */
import { connect, type Socket } from 'node:net';
import { Dc09Framer } from '../../src/protocols/dc09/frame.js';
import { buildMessage } from '../../src/protocols/dc09/index.js';
import { LOOPBACK } from './net.js';

export interface PanelOptions {
  /** The panel stops after this many events. */
  readonly maxEvents: number;
  /** Resend an unanswered event after this long; absent: never. */
  readonly resendMs?: number;
}

/** Contact ID group and zone of event n. */
export function eventFields(n: number): { group: string; zone: string } {
  return { group: String(Math.floor(n / 1000)).padStart(2, '0'), zone: String(n % 1000).padStart(3, '0') };
}

/** The event number a stored group and zone stand for (the inverse of eventFields). */
export function eventNumber(group: string | null, zone: string | null): number {
  return Number(group) * 1000 + Number(zone);
}

export class Dc09Panel {
  /** Numbers of the events the gateway ACKed, in order. */
  readonly acked: number[] = [];
  private readonly socket: Socket;
  private readonly framer = new Dc09Framer();
  private readonly options: PanelOptions;
  private event = 0;
  private timer: NodeJS.Timeout | null = null;
  private running = true;

  constructor(
    readonly account: string,
    port: number,
    options: PanelOptions,
  ) {
    this.options = options;
    this.socket = connect({ host: LOOPBACK, port });
    this.socket.on('error', () => (this.running = false));
    this.socket.on('close', () => (this.running = false));
    this.socket.on('data', (chunk: Buffer) => {
      for (const item of this.framer.push(chunk)) {
        if (item.kind !== 'frame') continue;
        const ack = /^"ACK"(\d{4})/.exec(item.body.toString('latin1'));
        if (!ack || Number(ack[1]) !== this.sequence) continue;
        this.acked.push(this.event);
        this.next();
      }
    });
    this.socket.once('connect', () => this.next());
  }

  /** True until the connection closed or failed. */
  get connected(): boolean {
    return this.running;
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.socket.destroy();
  }

  private get sequence(): number {
    return (this.event % 9999) + 1;
  }

  private next(): void {
    if (this.timer) clearTimeout(this.timer);
    if (!this.running || this.event >= this.options.maxEvents) return;
    this.event++;
    this.send();
  }

  private send(): void {
    if (!this.running) return;
    const { group, zone } = eventFields(this.event);
    const data = `#${this.account}|1130 ${group} ${zone}`;
    this.socket.write(
      buildMessage({ token: 'ADM-CID', sequence: this.sequence, receiver: 1, line: 1, account: this.account, data }),
    );
    const resendMs = this.options.resendMs;
    if (resendMs !== undefined) this.timer = setTimeout(() => this.send(), resendMs);
  }
}
