/**
 * One simulated panel on its own persistent TCP connection: DC-09 events and NULL link tests out,
 * ACK/NAK/DUH in, and the device link on the same connection (VL-HELLO on connect, answers to
 * VL-CMD / VL-CFG / VL-TIME). Reconnects with exponential backoff when the connection drops or
 * cannot be made, at most maxReconnects times per run.
 */
import { connect, type Socket } from 'node:net';
import { describeError } from '../core/errors.js';
import { Dc09Framer } from '../protocols/dc09/frame.js';
import { parseReply } from '../protocols/dc09/replies.js';
import { isLinkBody } from '../protocols/device-link/codec.js';
import type { DecodedLinkMessage } from '../protocols/device-link/messages.js';
import { DeviceCore, type DeviceSetup, type SimDevice } from './device-core.js';
import type { SessionKey } from '../protocols/device-link/session-cipher.js';
import { DeviceHandshake } from './link-handshake.js';
import { answerCommand, answerTime } from './link-responder.js';

/** Delayed command replies one device may hold at once; a flood beyond is not answered. */
const MAX_PENDING_REPLIES = 64;
/** A device that keeps being refused for its clock gives up after this many HELLOs per connection. */
const MAX_HELLOS_PER_CONNECTION = 3;
/**
 * VL-HELLO's sequence. The DC-09 transmitter never uses 0000 (§5.5.1.5: 0001..9999), so a DUH
 * "0000" from a receiver without the device link (docs/device-link.md §1) cannot be mistaken for
 * the DUH of an event in flight.
 */
const HELLO_SEQ = 0;

export class TcpDevice implements SimDevice {
  private readonly core: DeviceCore;
  private readonly framer = new Dc09Framer();
  private socket: Socket | null = null;
  private connected = false;
  private running = false;
  private reconnects = 0;
  private backoffMs: number;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private readonly replyTimers = new Set<NodeJS.Timeout>();
  private hellos = 0;
  private helloPending = false;
  private helloSentAt = 0;
  private readonly handshake: DeviceHandshake;

  constructor(setup: DeviceSetup) {
    this.core = new DeviceCore(setup, (frame) => this.write(frame));
    this.backoffMs = setup.options.reconnectInitialMs;
    const link = setup.options.link;
    this.handshake = new DeviceHandshake(
      { seq: HELLO_SEQ, uid: setup.uid, account: setup.account, hwId: link.hwId, firmware: link.firmware },
      setup.keyring,
    );
  }

  /**
   * Nothing in flight: no event awaiting its ACK and no HELLO awaiting the gateway's answer (up to the ACK
   * timeout, so a receiver without the device link cannot hold a run that spent its budget).
   */
  get idle(): boolean {
    const helloAnswerDue =
      this.helloPending && performance.now() - this.helloSentAt < this.core.setup.options.ackTimeoutMs;
    return this.core.tx.idle && !helloAnswerDue;
  }

  start(): void {
    this.running = true;
    this.core.begin();
    this.open();
  }

  tick(now: number): void {
    this.core.tick(now);
  }

  drain(): void {
    this.core.drain();
  }

  close(): void {
    this.running = false;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    for (const timer of this.replyTimers) clearTimeout(timer);
    this.replyTimers.clear();
    this.core.finish();
    const socket = this.socket;
    if (socket) this.detach(socket, false);
    socket?.destroy();
  }

  private open(): void {
    const { options, localAddress, stats } = this.core.setup;
    const socket = connect({
      host: options.host,
      port: options.port,
      noDelay: true,
      ...(localAddress ? { localAddress } : {}),
    });
    this.socket = socket;
    socket.on('connect', () => {
      if (this.socket !== socket) return;
      this.connected = true;
      this.backoffMs = options.reconnectInitialMs;
      this.hellos = 0;
      this.helloPending = false;
      stats.connects++;
      stats.connected++;
      if (options.link.hello) this.sendHello();
      this.core.tx.setOpen(true);
    });
    socket.on('data', (chunk: Buffer) => {
      if (this.socket === socket) this.onData(chunk);
    });
    socket.on('drain', () => {
      if (this.socket === socket) this.core.tx.setOpen(true);
    });
    socket.on('error', (err) => {
      if (this.socket !== socket) return;
      if (this.connected) stats.sendErrors++;
      else stats.connectErrors++;
      this.core.setup.logger.debug('socket error', { device: this.core.setup.account, error: describeError(err) });
    });
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.detach(socket, true);
      this.scheduleReconnect();
    });
  }

  /**
   * Forgets the socket: counters, path and framer state belong to the next connection.
   * `lost`: the connection dropped (counted), rather than being closed by the run's end.
   */
  private detach(socket: Socket, lost: boolean): void {
    if (this.socket !== socket) return;
    const stats = this.core.setup.stats;
    if (this.connected) {
      stats.connected--;
      if (lost) stats.disconnects++;
    }
    this.connected = false;
    this.socket = null;
    this.framer.reset();
    this.core.tx.pathClosed();
  }

  private scheduleReconnect(): void {
    const { options } = this.core.setup;
    if (!this.running || this.reconnects >= options.maxReconnects) return;
    this.reconnects++;
    // ±20 % jitter keeps a fleet that lost the gateway together from reconnecting in lock step.
    const delay = this.backoffMs * (0.8 + Math.random() * 0.4);
    this.backoffMs = Math.min(this.backoffMs * 2, options.reconnectMaxMs);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.running) this.open();
    }, delay);
  }

  private write(frame: Buffer): boolean {
    if (!this.socket || !this.connected) return false;
    return this.socket.write(frame);
  }

  private sendHello(): void {
    const { setup } = this.core;
    this.hellos++;
    this.helloPending = true;
    this.helloSentAt = performance.now();
    setup.stats.hellosSent++;
    this.write(this.handshake.hello(this.core.clock.now(), setup.options.key));
  }

  /** Link replies are sealed with the session key; its IVs come from the CSPRNG, never a test's fixed pad source. */
  private moment(): { now: number; key: SessionKey | null } {
    return { now: this.core.clock.now(), key: this.handshake.sessionKey };
  }

  private onData(chunk: Buffer): void {
    const { stats, options } = this.core.setup;
    for (const item of this.framer.push(chunk)) {
      if (item.kind === 'rejected') {
        stats.rejectedFrames++;
        continue;
      }
      if (isLinkBody(item.body)) {
        this.onLink(item.body);
        continue;
      }
      const reply = parseReply(item.body, options.key);
      if (!reply) stats.unexpectedFrames++;
      else if (reply.kind === 'DUH' && reply.sequence === '0000' && this.helloPending) this.linkUnavailable();
      else this.core.tx.onReply(reply);
    }
  }

  /** DUH to the HELLO: the receiver has no device link; no further link messages on this connection. */
  private linkUnavailable(): void {
    this.helloPending = false;
    this.hellos = MAX_HELLOS_PER_CONNECTION;
    this.core.setup.stats.linkUnavailable++;
  }

  private onLink(body: Buffer): void {
    const { stats, options } = this.core.setup;
    const message = this.handshake.decode(body, options.key);
    if ('error' in message) {
      stats.linkErrors++;
      return;
    }
    switch (message.type) {
      case 'challenge': {
        const proof = this.handshake.proof(message, this.core.clock.now());
        if (proof) this.write(proof);
        else {
          // No key for this UID and the gateway did not enrol it: no link on this connection.
          this.helloPending = false;
          stats.linkErrors++;
        }
        return;
      }
      case 'welcome':
        this.helloPending = false;
        if (this.handshake.welcomed(message)) stats.welcomes++;
        else stats.linkErrors++;
        return;
      case 'refuse':
        this.helloPending = false;
        stats.refusals++;
        // VL-REFUSE TIME carries the gateway's time: set the clock and introduce ourselves again.
        if (message.reason === 'TIME' && message.timestamp !== null) {
          this.core.clock.setTo(message.timestamp);
          if (this.hellos < MAX_HELLOS_PER_CONNECTION) this.sendHello();
        }
        return;
      case 'command':
        // Commands count only on a proven link, sealed with its session key (docs/device-link.md §2.6).
        if (!this.handshake.sessionKey || !message.encrypted) {
          stats.unexpectedFrames++;
          return;
        }
        stats.commandsReceived++;
        this.reply(message);
        return;
      case 'time':
        if (!this.handshake.sessionKey || !message.encrypted) {
          stats.unexpectedFrames++;
          return;
        }
        stats.timeSyncs++;
        if (message.timestamp !== null) this.core.clock.setTo(message.timestamp);
        this.write(answerTime(message, this.moment()));
        return;
      default:
        stats.unexpectedFrames++;
    }
  }

  private reply(command: Extract<DecodedLinkMessage, { type: 'command' }>): void {
    const receivedAt = this.core.setup.monotonic();
    const delay = this.core.setup.options.link.replyDelayMs;
    if (delay === 0) {
      this.sendReply(command, receivedAt);
      return;
    }
    if (this.replyTimers.size >= MAX_PENDING_REPLIES) {
      this.core.setup.stats.linkErrors++;
      return;
    }
    const socket = this.socket;
    const timer = setTimeout(() => {
      this.replyTimers.delete(timer);
      // A reply belongs to the connection the command came on.
      if (this.socket === socket && this.connected) this.sendReply(command, receivedAt);
    }, delay);
    this.replyTimers.add(timer);
  }

  private sendReply(command: Extract<DecodedLinkMessage, { type: 'command' }>, receivedAt: number): void {
    const { setup } = this.core;
    const frames = answerCommand(command, setup.options.link, this.moment());
    for (const frame of frames) this.write(frame);
    setup.stats.replyPacketsSent += frames.length;
    setup.onCommand?.({
      uid: setup.uid,
      seq: command.seq,
      kind: command.kind,
      receivedAt,
      repliedAt: setup.monotonic(),
      packets: frames.length,
    });
  }
}
