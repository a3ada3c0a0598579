/**
 * UDP link for DC-09 over UDP (SIA DC-09 §5.3: one message per datagram). The socket is "connected" to the receiver,
 * so only datagrams from that address and port are delivered and the kernel reports ICMP refusals. UDP has no
 * connection to lose: a receiver that is down shows up as silence, which the output's retries handle.
 */
import { createSocket, type Socket } from 'node:dgram';
import { isIP } from 'node:net';
import { VigilError, describeError } from '../core/errors.js';
import type { ByteLink } from './byte-link.js';

export interface UdpLinkOptions {
  readonly host: string;
  readonly port: number;
}

export class UdpLink implements ByteLink {
  readonly framing = 'datagram' as const;
  readonly description: string;
  private readonly options: UdpLinkOptions;
  private socket: Socket | null = null;
  private dataListener: (chunk: Buffer) => void = () => undefined;
  private closeListener: (reason: string) => void = () => undefined;

  constructor(options: UdpLinkOptions) {
    this.options = options;
    this.description = `udp ${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}`;
  }

  get connected(): boolean {
    return this.socket !== null;
  }

  connect(): Promise<void> {
    if (this.socket) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const socket = createSocket(isIP(this.options.host) === 6 ? 'udp6' : 'udp4');
      const fail = (err: unknown): void => {
        socket.removeAllListeners();
        socket.on('error', () => undefined);
        socket.close();
        reject(new VigilError('SERVICE_FAILED', `cannot open ${this.description}: ${describeError(err)}`));
      };
      socket.once('error', fail);
      socket.connect(this.options.port, this.options.host, () => {
        socket.removeListener('error', fail);
        this.attach(socket);
        resolve();
      });
    });
  }

  write(bytes: Buffer): void {
    if (!this.socket) throw new VigilError('SERVICE_FAILED', `${this.description} is not open`);
    // A send error (ICMP port unreachable on a connected socket) is just a lost datagram: the ACK wait covers it.
    this.socket.send(bytes, () => undefined);
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
      socket.removeAllListeners('message');
      socket.removeAllListeners('close');
      socket.close(() => resolve());
    });
  }

  private attach(socket: Socket): void {
    this.socket = socket;
    socket.on('message', (msg: Buffer) => this.dataListener(msg));
    // ECONNREFUSED after an ICMP error is reported here too; the socket stays usable, so it is not a close.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.closeListener('socket closed');
    });
  }
}
