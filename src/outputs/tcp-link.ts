/**
 * TCP client link: Vigil connects to the automation software's (or DC-09 receiver's) port. Nagle is off: every
 * message is a small write that waits for its ACK, so coalescing would only add latency.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { VigilError, describeError } from '../core/errors.js';
import type { ByteLink } from './byte-link.js';

export interface TcpLinkOptions {
  readonly host: string;
  readonly port: number;
  /** Give up a connection attempt after this long (default 5000 ms). */
  readonly connectTimeoutMs?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
/** Detects a silently vanished peer (cable pulled, NAT entry dropped) between heartbeats. */
const KEEPALIVE_MS = 15_000;

export class TcpLink implements ByteLink {
  readonly framing = 'stream' as const;
  readonly description: string;
  private readonly options: TcpLinkOptions;
  private socket: Socket | null = null;
  private dataListener: (chunk: Buffer) => void = () => undefined;
  private closeListener: (reason: string) => void = () => undefined;

  constructor(options: TcpLinkOptions) {
    this.options = options;
    this.description = `tcp ${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}`;
  }

  get connected(): boolean {
    return this.socket !== null;
  }

  connect(): Promise<void> {
    if (this.socket) return Promise.resolve();
    const timeoutMs = this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const socket = netConnect({ host: this.options.host, port: this.options.port });
      const timer = setTimeout(() => fail(`no connection within ${timeoutMs} ms`), timeoutMs);
      const fail = (reason: string): void => {
        clearTimeout(timer);
        socket.removeAllListeners();
        socket.on('error', () => undefined);
        socket.destroy();
        reject(new VigilError('SERVICE_FAILED', `cannot connect to ${this.description}: ${reason}`));
      };
      socket.once('error', (err) => fail(describeError(err)));
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        socket.setNoDelay(true);
        socket.setKeepAlive(true, KEEPALIVE_MS);
        this.attach(socket);
        resolve();
      });
    });
  }

  write(bytes: Buffer): void {
    if (!this.socket) throw new VigilError('SERVICE_FAILED', `${this.description} is not connected`);
    this.socket.write(bytes);
  }

  onData(listener: (chunk: Buffer) => void): void {
    this.dataListener = listener;
  }

  onClose(listener: (reason: string) => void): void {
    this.closeListener = listener;
  }

  close(): Promise<void> {
    const socket = this.socket;
    this.socket = null;
    if (!socket) return Promise.resolve();
    return new Promise((resolve) => {
      socket.removeAllListeners('data');
      socket.removeAllListeners('close');
      socket.once('close', () => resolve());
      socket.end();
      // A peer that does not finish the close handshake must not hold stop() up.
      setTimeout(() => socket.destroy(), 1000).unref();
      if (socket.destroyed) resolve();
    });
  }

  private attach(socket: Socket): void {
    this.socket = socket;
    let lastError = 'closed by peer';
    socket.on('data', (chunk: Buffer) => this.dataListener(chunk));
    socket.on('error', (err) => (lastError = describeError(err)));
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.closeListener(lastError);
    });
  }
}
