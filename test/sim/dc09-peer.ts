/**
 * A small DC-09 receiver for the simulator's tests, written with the codec: TCP (one framer per
 * connection) or UDP (one frame per datagram) on 127.0.0.1. It records every frame, answers each
 * message as `answer` says (ACK / NAK / DUH / nothing / close the connection), runs the gateway's
 * side of the HELLO handshake (enrolling every UID it has not seen, docs/device-link.md §4.4),
 * records VL-RSP / VL-ACK, and can send any frame (VL-CMD ... sealed with `sessions`) to a connection.
 */
import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import { Dc09Framer, decodeDatagram } from '../../src/protocols/dc09/frame.js';
import { openMessage, parseMessage, type ParsedMessage } from '../../src/protocols/dc09/message.js';
import { buildAck, buildDuh, buildNak } from '../../src/protocols/dc09/replies.js';
import { MemoryDeviceKeys } from '../../src/devices/device-keys.js';
import { decodeLinkBody, type SessionKey } from '../../src/protocols/device-link/codec.js';
import { answerHello, answerProof, type PendingHello } from '../../src/protocols/device-link/hello-handler.js';
import type { DecodedLinkMessage } from '../../src/protocols/device-link/messages.js';
import { waitFor } from '../helpers/net.js';

export type PeerAnswer = 'ack' | 'nak' | 'duh' | 'none' | 'close';

export interface Received {
  /** Index of the TCP connection (order of accept) or the UDP source port. */
  readonly from: number;
  readonly raw: Buffer;
  readonly body: Buffer;
  /** The DC-09 message, opened with the key when encrypted; null for device-link bodies. */
  readonly message: ParsedMessage | null;
  readonly link: DecodedLinkMessage | null;
  readonly at: number;
}

export interface PeerOptions {
  readonly key?: Buffer | null;
  /** Decides the reply to each DC-09 message (default ACK). `count` is 0-based over all messages. */
  readonly answer?: (message: ParsedMessage, count: number) => PeerAnswer;
  /** Receiver time for *ACK and NAK. */
  readonly now?: () => number;
  readonly randomBytes?: (n: number) => Buffer;
  /** Behave like a receiver without the device link: DUH to VL-HELLO (docs/device-link.md §1). */
  readonly duhHello?: boolean;
  /** Answer a proof's WELCOME this late, as a gateway does that first stores the device's key (TCP only). */
  readonly welcomeDelayMs?: number;
}

abstract class PeerBase {
  readonly received: Received[] = [];
  /** Each welcomed connection's session key, by `from`. */
  readonly sessions = new Map<number, SessionKey>();
  readonly keys = new MemoryDeviceKeys();
  private readonly pending = new Map<number, PendingHello>();
  protected readonly options: PeerOptions;
  private messages = 0;

  constructor(options: PeerOptions) {
    this.options = options;
  }

  get events(): Received[] {
    return this.received.filter((r) => r.message !== null && r.message.token !== 'NULL');
  }

  get linkMessages(): Received[] {
    return this.received.filter((r) => r.link !== null);
  }

  /** Writes a reply after the message it answers was handled (welcomeDelayMs). */
  protected sendLater(_from: number, _reply: Buffer): void {
    throw new Error('this peer cannot answer later');
  }

  waitFor(predicate: (peer: this) => boolean, timeoutMs = 5000): Promise<void> {
    return waitFor(() => predicate(this), timeoutMs, 5);
  }

  /** The reply for one body, or null; 'close' is returned for the transport to act on. */
  protected handle(from: number, raw: Buffer, body: Buffer): Buffer | 'close' | null {
    const key = this.options.key ?? null;
    const now = this.options.now?.() ?? Date.now();
    const parsed = parseMessage(body);
    if (parsed.kind === 'foreign') {
      const link = decodeLinkBody(body, this.sessions.get(from) ?? key);
      this.received.push({
        from,
        raw,
        body,
        message: null,
        link: 'error' in link ? null : link,
        at: performance.now(),
      });
      if (!('error' in link) && link.type === 'hello') {
        if (this.options.duhHello) {
          const account = link.account;
          return buildDuh({ sequence: String(link.seq).padStart(4, '0'), ...(account ? { account } : {}) });
        }
        const decision = answerHello(link, {
          now,
          key,
          requireEncryption: false,
          windowPastS: 40,
          windowFutureS: 20,
          deviceKey: (uid) => this.keys.state(uid, now, 'open'),
        });
        if (decision.action === 'challenge') this.pending.set(from, decision.pending);
        return decision.action === 'ignore' ? null : decision.reply;
      }
      const pending = this.pending.get(from);
      if (!('error' in link) && link.type === 'proof' && pending) {
        this.pending.delete(from);
        const decision = answerProof(link, pending, now);
        if (decision.action !== 'welcome') return decision.action === 'ignore' ? null : decision.reply;
        // Keys in memory: stored before enrol() returns, and it never rejects.
        if (decision.enrolledKey) void this.keys.enrol(pending.hello.uid, decision.enrolledKey);
        this.sessions.set(from, decision.sessionKey);
        const delay = this.options.welcomeDelayMs;
        if (!delay) return decision.reply;
        setTimeout(() => this.sendLater(from, decision.reply), delay).unref();
        return null;
      }
      return null;
    }
    if (parsed.kind === 'invalid') throw new Error(`peer got an invalid message: ${parsed.detail}`);
    const message = parsed.encrypted && key ? openMessage(parsed, key) : parsed;
    if (!message) throw new Error('peer could not open an encrypted message');
    this.received.push({ from, raw, body, message, link: null, at: performance.now() });
    const answer = this.options.answer?.(message, this.messages++) ?? 'ack';
    const rb = this.options.randomBytes ? { randomBytes: this.options.randomBytes } : {};
    switch (answer) {
      case 'ack':
        return buildAck(message, { now, key, ...rb });
      case 'nak':
        return buildNak(now);
      case 'duh':
        return buildDuh(message);
      case 'close':
        return 'close';
      case 'none':
        return null;
    }
  }
}

export class TcpPeer extends PeerBase {
  readonly connections: Socket[] = [];
  private server: Server | null = null;
  port = 0;

  async start(): Promise<void> {
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
  }

  async stop(): Promise<void> {
    for (const socket of this.connections) socket.destroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  protected override sendLater(from: number, reply: Buffer): void {
    this.connections[from]?.write(reply);
  }

  /** Writes raw bytes to the index-th accepted connection. */
  send(index: number, frame: Buffer): void {
    const socket = this.connections[index];
    if (!socket) throw new Error(`no connection ${index}`);
    socket.write(frame);
  }

  private accept(socket: Socket): void {
    const index = this.connections.push(socket) - 1;
    socket.setNoDelay(true);
    const framer = new Dc09Framer();
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      for (const item of framer.push(chunk)) {
        if (item.kind !== 'frame') throw new Error(`peer got a rejected frame: ${item.reason}`);
        const reply = this.handle(index, item.raw, item.body);
        if (reply === 'close') {
          socket.destroy();
          return;
        }
        if (reply) socket.write(reply);
      }
    });
  }
}

export class UdpPeer extends PeerBase {
  private socket: UdpSocket | null = null;
  port = 0;
  /** Source ports seen, in order of first datagram. */
  readonly sources: number[] = [];

  async start(): Promise<void> {
    const socket = createSocket('udp4');
    this.socket = socket;
    socket.on('message', (datagram: Buffer, rinfo: RemoteInfo) => this.onDatagram(socket, datagram, rinfo));
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    this.port = socket.address().port;
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    this.socket = null;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }

  private onDatagram(socket: UdpSocket, datagram: Buffer, rinfo: RemoteInfo): void {
    if (!this.sources.includes(rinfo.port)) this.sources.push(rinfo.port);
    const item = decodeDatagram(datagram);
    if (item.kind !== 'frame') throw new Error(`peer got a rejected datagram: ${item.reason}`);
    const reply = this.handle(rinfo.port, item.raw, item.body);
    if (reply && reply !== 'close') socket.send(reply, rinfo.port, rinfo.address);
  }
}
