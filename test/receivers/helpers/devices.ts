/**
 * Test transmitters on loopback: a TCP device (one connection, frames read with the real framer)
 * and a UDP device (one socket). Every wait is bounded.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, type Socket } from 'node:net';
import { Dc09Framer } from '../../../src/protocols/dc09/frame.js';
import { LOOPBACK } from '../../helpers/net.js';

/** Collects frame bodies and hands them out in order; `onFrame` runs synchronously on arrival. */
class Inbox {
  readonly bodies: Buffer[] = [];
  onFrame: ((body: Buffer) => void) | null = null;
  private waiter: (() => void) | null = null;

  add(body: Buffer): void {
    this.onFrame?.(body);
    this.bodies.push(body);
    this.waiter?.();
  }

  async next(timeoutMs: number, what: string): Promise<Buffer> {
    const deadline = Date.now() + timeoutMs;
    while (this.bodies.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = null;
    }
    return this.bodies.shift()!;
  }

  async silence(ms: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (this.bodies.length > 0) throw new Error(`unexpected reply: ${this.bodies[0]!.toString('latin1')}`);
  }
}

export class TcpDevice {
  readonly socket: Socket;
  readonly inbox = new Inbox();
  readonly closed: Promise<void>;
  private readonly framer = new Dc09Framer();

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      for (const item of this.framer.push(chunk)) if (item.kind === 'frame') this.inbox.add(item.body);
    });
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  /** `localAddress`: the source address (any of 127/8 on loopback), to play another host. */
  static connect(port: number, host = LOOPBACK, localAddress?: string): Promise<TcpDevice> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host, noDelay: true, ...(localAddress ? { localAddress } : {}) });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new TcpDevice(socket));
      });
    });
  }

  send(bytes: Buffer | string): void {
    this.socket.write(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes);
  }

  /** The next frame body received (a reply or a device-link message). */
  next(timeoutMs = 3000): Promise<Buffer> {
    return this.inbox.next(timeoutMs, 'frame');
  }

  async nextText(timeoutMs = 3000): Promise<string> {
    return (await this.next(timeoutMs)).toString('latin1');
  }

  silence(ms = 150): Promise<void> {
    return this.inbox.silence(ms);
  }

  /** Resolves true when the gateway closed the connection within `ms`. */
  async closedWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      this.closed.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
    ]);
    clearTimeout(timer);
    return result;
  }

  /** Resolves true when the socket's write buffer drained (the gateway read what was written) within `ms`. */
  drainedWithin(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const onDrain = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.socket.off('drain', onDrain);
        resolve(false);
      }, ms);
      this.socket.once('drain', onDrain);
    });
  }

  close(): Promise<void> {
    this.socket.destroy();
    return this.closed;
  }
}

export class UdpDevice {
  readonly socket: UdpSocket;
  readonly inbox = new Inbox();
  private readonly framer = new Dc09Framer();

  private constructor(socket: UdpSocket) {
    this.socket = socket;
    socket.on('message', (msg) => {
      for (const item of this.framer.push(msg)) if (item.kind === 'frame') this.inbox.add(item.body);
    });
  }

  /** `address`: the source address (any of 127/8 on loopback), to play another host. */
  static open(address = LOOPBACK): Promise<UdpDevice> {
    return new Promise((resolve) => {
      const socket = createSocket('udp4');
      socket.bind(0, address, () => resolve(new UdpDevice(socket)));
    });
  }

  get port(): number {
    return this.socket.address().port;
  }

  send(bytes: Buffer, port: number): void {
    this.socket.send(bytes, port, LOOPBACK);
  }

  next(timeoutMs = 3000): Promise<Buffer> {
    return this.inbox.next(timeoutMs, 'datagram reply');
  }

  async nextText(timeoutMs = 3000): Promise<string> {
    return (await this.next(timeoutMs)).toString('latin1');
  }

  silence(ms = 150): Promise<void> {
    return this.inbox.silence(ms);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}
