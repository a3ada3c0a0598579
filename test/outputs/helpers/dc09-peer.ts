/**
 * A test DC-09 receiver over real TCP or UDP on 127.0.0.1, built from Vigil's own receiver codec (handleFrame): it
 * runs the time test against its own clock, decrypts with its key, and answers ACK / *ACK / NAK / DUH as a receiver
 * does. A policy can make it silent or force a DUH. Every frame received is kept byte for byte.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import {
  Dc09Framer,
  buildDuh,
  decodeDatagram,
  handleFrame,
  type FrameDecision,
} from '../../../src/protocols/dc09/index.js';
import { LOOPBACK, waitFor } from '../../helpers/net.js';

export type Dc09Answer = 'normal' | 'silent' | 'duh';

export interface ReceivedFrame {
  /** The whole frame, LF to CR. */
  readonly raw: Buffer;
  readonly decision: FrameDecision;
}

export interface Dc09PeerOptions {
  readonly transport: 'tcp' | 'udp';
  readonly key?: Buffer | null;
  /** The receiver's clock (ms). */
  readonly now: () => number;
  /** Fixed pad for *ACK so replies are reproducible. */
  readonly randomBytes?: (n: number) => Buffer;
}

export class Dc09Peer {
  readonly frames: ReceivedFrame[] = [];
  policy: (frame: ReceivedFrame, index: number) => Dc09Answer = () => 'normal';
  /** The receiver's key; a test may change it (a receiver reconfigured while the output runs). */
  key: Buffer | null;
  private readonly options: Dc09PeerOptions;
  private tcp: Server | null = null;
  private udp: UdpSocket | null = null;
  private readonly sockets = new Set<Socket>();
  private portNumber = 0;

  constructor(options: Dc09PeerOptions) {
    this.options = options;
    this.key = options.key ?? null;
  }

  get port(): number {
    return this.portNumber;
  }

  get transport(): 'tcp' | 'udp' {
    return this.options.transport;
  }

  async listen(): Promise<number> {
    if (this.options.transport === 'tcp') {
      const server = createServer((socket) => this.acceptTcp(socket));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, LOOPBACK, () => resolve());
      });
      this.tcp = server;
      const address = server.address();
      this.portNumber = typeof address === 'object' && address ? address.port : 0;
    } else {
      const socket = createSocket('udp4');
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind(0, LOOPBACK, () => resolve());
      });
      socket.on('message', (msg, rinfo) => {
        const item = decodeDatagram(msg);
        if (item.kind !== 'frame') return;
        const reply = this.handle(item.body, item.raw);
        if (reply) socket.send(reply, rinfo.port, rinfo.address);
      });
      this.udp = socket;
      this.portNumber = socket.address().port;
    }
    return this.portNumber;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const tcp = this.tcp;
    const udp = this.udp;
    this.tcp = null;
    this.udp = null;
    if (tcp) await new Promise<void>((resolve) => tcp.close(() => resolve()));
    if (udp) await new Promise<void>((resolve) => udp.close(() => resolve()));
  }

  /** Frames that carried events (not NULL link tests). */
  eventFrames(): ReceivedFrame[] {
    return this.frames.filter((f) => f.decision.message?.token !== 'NULL');
  }

  nullFrames(): ReceivedFrame[] {
    return this.frames.filter((f) => f.decision.message?.token === 'NULL');
  }

  async waitForFrames(count: number, timeoutMs = 5000): Promise<void> {
    await waitFor(() => this.frames.length >= count, timeoutMs, 5);
  }

  private acceptTcp(socket: Socket): void {
    this.sockets.add(socket);
    const framer = new Dc09Framer();
    socket.on('data', (chunk: Buffer) => {
      for (const item of framer.push(chunk)) {
        if (item.kind !== 'frame') continue;
        const reply = this.handle(item.body, item.raw);
        if (reply) socket.write(reply);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => this.sockets.delete(socket));
  }

  private handle(body: Buffer, raw: Buffer): Buffer | null {
    const decision = handleFrame(body, {
      now: this.options.now(),
      key: this.key,
      requireEncryption: false,
      checkPlainTimestamps: true,
      acceptLocalTime: false,
      ...(this.options.randomBytes ? { randomBytes: this.options.randomBytes } : {}),
    });
    const frame: ReceivedFrame = { raw, decision };
    this.frames.push(frame);
    const answer = this.policy(frame, this.frames.length - 1);
    if (answer === 'silent') return null;
    if (answer === 'duh') return buildDuh(decision.message ?? {});
    return decision.reply;
  }
}
