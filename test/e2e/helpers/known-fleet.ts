/**
 * The known devices of the siege test: TCP and UDP panels on 127.0.0.1, each with its own account, that
 * report one ADM-CID event at a time (event n carries n in its group and zone: test/helpers/dc09-panel.ts)
 * and time each ACK from the first send. A UDP panel sends a datagram again after `resendMs` without an
 * ACK, as a transmitter does (SIA DC-09 §5.3); the time still counts from the first send.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, type Socket } from 'node:net';
import { Dc09Framer } from '../../../src/protocols/dc09/frame.js';
import { buildMessage } from '../../../src/protocols/dc09/index.js';
import { eventFields } from '../../helpers/dc09-panel.js';
import { LOOPBACK } from '../../helpers/net.js';

export interface Reporting {
  readonly account: string;
  /** Event numbers the gateway ACKed. */
  readonly acked: number[];
  /** ACK latencies in ms, from the first send of each event. */
  readonly latencies: number[];
  /** For each latency: whether the event was sent more than once (UDP: no ACK within resendMs). */
  readonly resent: boolean[];
  /** Events that got no ACK within the deadline. */
  unanswered: number;
}

const ACK_DEADLINE_MS = 5000;
/** A UDP panel sends an unanswered datagram again after this long. */
export const UDP_RESEND_MS = 2000;

function frame(account: string, n: number): Buffer {
  const { group, zone } = eventFields(n);
  return buildMessage({
    token: 'ADM-CID',
    sequence: (n % 9999) + 1,
    receiver: 1,
    line: 1,
    account,
    data: `#${account}|1130 ${group} ${zone}`,
  });
}

function ackSequence(body: Buffer): number | null {
  const m = /^"ACK"(\d{4})/.exec(body.toString('latin1'));
  return m ? Number(m[1]) : null;
}

/** One panel: sends `report()` calls one at a time; resolves each with the latency or null (no ACK in time). */
abstract class Panel implements Reporting {
  readonly acked: number[] = [];
  readonly latencies: number[] = [];
  readonly resent: boolean[] = [];
  unanswered = 0;
  private n = 0;
  private waiting: { seq: number; resolve: (ok: boolean) => void } | null = null;

  constructor(readonly account: string) {}

  protected abstract send(bytes: Buffer): void;
  protected resendMs(): number | null {
    return null;
  }

  protected received(body: Buffer): void {
    const seq = ackSequence(body);
    if (seq !== null && this.waiting && seq === this.waiting.seq) this.waiting.resolve(true);
  }

  /** Sends the next event and waits for its ACK. */
  async report(): Promise<void> {
    const n = ++this.n;
    const bytes = frame(this.account, n);
    const started = performance.now();
    const resend = this.resendMs();
    let timer: NodeJS.Timeout | undefined;
    let sends = 0;
    const ok = await new Promise<boolean>((resolve) => {
      const finish = (value: boolean): void => {
        clearTimeout(deadline);
        clearTimeout(timer);
        resolve(value);
      };
      const deadline = setTimeout(() => finish(false), ACK_DEADLINE_MS);
      this.waiting = { seq: (n % 9999) + 1, resolve: finish };
      const again = (): void => {
        sends++;
        this.send(bytes);
        if (resend !== null) timer = setTimeout(again, resend);
      };
      again();
    });
    this.waiting = null;
    if (ok) {
      this.acked.push(n);
      this.latencies.push(performance.now() - started);
      this.resent.push(sends > 1);
    } else this.unanswered++;
  }

  abstract close(): void;
}

export class TcpPanel extends Panel {
  private readonly socket: Socket;
  private readonly framer = new Dc09Framer();

  private constructor(account: string, socket: Socket) {
    super(account);
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      for (const item of this.framer.push(chunk)) if (item.kind === 'frame') this.received(item.body);
    });
    socket.on('error', () => undefined);
  }

  static open(account: string, port: number): Promise<TcpPanel> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host: LOOPBACK, localAddress: LOOPBACK, noDelay: true });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new TcpPanel(account, socket));
      });
    });
  }

  get connected(): boolean {
    return !this.socket.destroyed;
  }

  protected send(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  close(): void {
    this.socket.destroy();
  }
}

export class UdpPanel extends Panel {
  private readonly socket: UdpSocket;
  private readonly port: number;

  private constructor(account: string, socket: UdpSocket, port: number) {
    super(account);
    this.socket = socket;
    this.port = port;
    socket.on('message', (datagram: Buffer) => {
      const framed = new Dc09Framer().push(datagram);
      for (const item of framed) if (item.kind === 'frame') this.received(item.body);
    });
    socket.on('error', () => undefined);
  }

  static async open(account: string, port: number): Promise<UdpPanel> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, LOOPBACK, resolve));
    return new UdpPanel(account, socket, port);
  }

  protected send(bytes: Buffer): void {
    this.socket.send(bytes, this.port, LOOPBACK);
  }

  protected override resendMs(): number {
    return UDP_RESEND_MS;
  }

  close(): void {
    this.socket.close();
  }
}

export type AnyPanel = TcpPanel | UdpPanel;

/** Each panel reports every `intervalMs` (spread over the interval) until `until`; resolves when all stopped. */
export async function keepReporting(panels: readonly AnyPanel[], intervalMs: number, until: number): Promise<void> {
  await Promise.all(
    panels.map(async (panel, i) => {
      await new Promise((resolve) => setTimeout(resolve, (i * intervalMs) / panels.length));
      while (Date.now() < until) {
        const started = Date.now();
        await panel.report();
        const rest = intervalMs - (Date.now() - started);
        if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
      }
    }),
  );
}
