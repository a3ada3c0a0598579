/**
 * Devices that connect for each event, as GPRS communicators often do: every tick one opens a TCP
 * connection, sends one ADM-CID event (SIA DC-09), waits for its ACK and closes. Each connection is
 * a session the gateway opens, logs and trims (device_session_log_count), so a soak with churn
 * shows memory held per connection as well as per message. Loopback only; bounded: at most
 * `perSecond` new connections a second, each closed after its ACK or after `timeoutMs`.
 */
import { connect } from 'node:net';
import { Dc09Framer } from '../../src/protocols/dc09/frame.js';
import { buildMessage } from '../../src/protocols/dc09/index.js';

export interface ChurnStats {
  opened: number;
  acked: number;
  failed: number;
}

export class ChurnDevices {
  readonly stats: ChurnStats = { opened: 0, acked: 0, failed: 0 };
  private readonly port: number;
  private readonly perSecond: number;
  private readonly accounts: number;
  private readonly timeoutMs: number;
  private timer: NodeJS.Timeout | null = null;
  private next = 0;

  /** `accounts` distinct devices (accounts C000.. upward) take turns. */
  constructor(options: { port: number; perSecond: number; accounts: number; timeoutMs?: number }) {
    this.port = options.port;
    this.perSecond = options.perSecond;
    this.accounts = options.accounts;
    this.timeoutMs = options.timeoutMs ?? 5_000;
  }

  start(): void {
    if (this.timer || this.perSecond <= 0) return;
    this.timer = setInterval(() => this.once(), 1000 / this.perSecond);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private once(): void {
    const n = this.next++;
    const account = (0xc000 + (n % this.accounts)).toString(16).toUpperCase();
    const sequence = (n % 9999) + 1;
    const socket = connect({ host: '127.0.0.1', port: this.port });
    const framer = new Dc09Framer();
    this.stats.opened++;
    let done = false;
    const finish = (ok: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timeout);
      if (ok) this.stats.acked++;
      else this.stats.failed++;
      socket.destroy();
    };
    const timeout = setTimeout(() => finish(false), this.timeoutMs);
    socket.on('error', () => finish(false));
    socket.on('data', (chunk: Buffer) => {
      for (const item of framer.push(chunk)) {
        if (item.kind === 'frame' && item.body.toString('latin1').startsWith('"ACK"')) finish(true);
      }
    });
    socket.once('connect', () => {
      const data = `#${account}|1401 01 ${String((n % 999) + 1).padStart(3, '0')}`;
      socket.write(buildMessage({ token: 'ADM-CID', sequence, receiver: 1, line: 1, account, data }));
    });
  }
}
