/**
 * One simulated panel over UDP: its own socket (its own source port, as a real panel has), one
 * frame per datagram (SIA DC-09 §5.3), replies only from the receiver's address (the socket is
 * connected). No device link: it needs the persistent TCP connection. Lost datagrams are what
 * the transmitter's ACK timeout and retries are for.
 */
import { createSocket, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { describeError } from '../core/errors.js';
import { decodeDatagram } from '../protocols/dc09/frame.js';
import { parseReply } from '../protocols/dc09/replies.js';
import { DeviceCore, type DeviceSetup, type SimDevice } from './device-core.js';

export class UdpDevice implements SimDevice {
  private readonly core: DeviceCore;
  private socket: Socket | null = null;
  private ready = false;

  constructor(setup: DeviceSetup) {
    this.core = new DeviceCore(setup, (frame) => this.send(frame));
  }

  get idle(): boolean {
    return this.core.tx.idle;
  }

  start(): void {
    const { options, localAddress, stats, logger } = this.core.setup;
    this.core.begin();
    const socket = createSocket(isIPv6(options.host) ? 'udp6' : 'udp4');
    this.socket = socket;
    socket.on('message', (datagram: Buffer) => this.onDatagram(datagram));
    socket.on('error', (err) => {
      // Connected UDP reports the receiver's ICMP "port unreachable" here (ECONNREFUSED).
      stats.sendErrors++;
      logger.debug('socket error', { device: this.core.setup.account, error: describeError(err) });
    });
    socket.bind({ port: 0, ...(localAddress ? { address: localAddress } : {}) }, () => {
      if (this.socket !== socket) return;
      socket.connect(options.port, options.host, () => {
        if (this.socket !== socket) return;
        this.ready = true;
        stats.connects++;
        stats.connected++;
        this.core.tx.setOpen(true);
      });
    });
  }

  tick(now: number): void {
    this.core.tick(now);
  }

  drain(): void {
    this.core.drain();
  }

  close(): void {
    this.core.finish();
    const socket = this.socket;
    this.socket = null;
    if (this.ready) this.core.setup.stats.connected--;
    this.ready = false;
    if (socket) {
      try {
        socket.close();
      } catch {
        // Already closed (bind failed): nothing to release.
      }
    }
  }

  private send(frame: Buffer): boolean {
    const socket = this.socket;
    if (!socket || !this.ready) return false;
    socket.send(frame, (err) => {
      if (err) this.core.setup.stats.sendErrors++;
    });
    return true;
  }

  private onDatagram(datagram: Buffer): void {
    const stats = this.core.setup.stats;
    const item = decodeDatagram(datagram);
    if (item.kind === 'rejected') {
      stats.rejectedFrames++;
      return;
    }
    const reply = parseReply(item.body, this.core.setup.options.key);
    if (reply) this.core.tx.onReply(reply);
    else stats.unexpectedFrames++;
  }
}
