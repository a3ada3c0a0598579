/**
 * A DC-09 UDP receiver (SIA DC-09 §5.3): one frame per datagram (decodeDatagram), the reply goes
 * to the sender's address and port, an ACK only after the commit. Datagrams are independent: a
 * bad one is dropped unanswered and touches nothing else. No device link (TCP only,
 * docs/device-link.md §1) and no session rows (there is no connection). Health `rx:udp:<id>`.
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { VigilError, describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import { decodeDatagram } from '../protocols/dc09/frame.js';
import type { FrameItem } from '../ingest/types.js';
import type { IpReceiverSettings } from '../settings/schema-receivers.js';
import { formatAddress, type ReceiverDeps } from './receiver-deps.js';
import { UDP_MAX_IN_FLIGHT_FACTOR } from './receiver-options.js';
import { ReceiverCounters, ReceiverProfile } from './receiver-profile.js';

export const UDP_RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;

export class UdpReceiver implements Service {
  readonly name: string;
  readonly counters = new ReceiverCounters();
  private readonly profile: ReceiverProfile;
  private readonly deps: ReceiverDeps;
  private readonly logger: Logger;
  private readonly maxInFlight: number;
  private socket: Socket | null = null;
  /** The socket replies still go out through while stop() lets the last commits finish. */
  private stopping: Socket | null = null;
  private listening: string | null = null;
  private inFlight = 0;
  private metricsTimer: NodeJS.Timeout | null = null;

  constructor(settings: IpReceiverSettings, deps: ReceiverDeps) {
    this.profile = new ReceiverProfile('udp', settings);
    this.name = this.profile.healthName;
    this.deps = deps;
    this.logger = deps.logger.child(`udp:${settings.id}`);
    this.maxInFlight = deps.options.maxInFlight * UDP_MAX_IN_FLIGHT_FACTOR;
  }

  get address(): string | null {
    return this.listening;
  }

  async start(): Promise<void> {
    if (this.socket) return;
    const { health, options } = this.deps;
    const { bindAddress, port, healthName } = this.profile;
    health.report(healthName, 'receiver', 'starting', null);
    // A 4 MiB receive buffer rides out bursts from many devices while the loop is busy; the
    // kernel caps it at net.core.rmem_max (the image raises that, docs/receivers.md).
    const socket = createSocket({ type: isIPv6(bindAddress) ? 'udp6' : 'udp4', recvBufferSize: UDP_RECEIVE_BUFFER_BYTES });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind({ port, address: bindAddress, exclusive: true }, () => {
          socket.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      socket.close();
      const detail = `cannot bind ${formatAddress(bindAddress, port)}: ${describeError(err)}`;
      this.counters.publish(health, healthName, null);
      health.report(healthName, 'receiver', 'failed', detail);
      this.logger.error('receiver failed to start', { error: detail });
      throw new VigilError('SERVICE_FAILED', detail, [], { cause: err });
    }
    const bound = socket.address();
    this.listening = formatAddress(bound.address, bound.port);
    this.socket = socket;
    socket.on('message', (datagram, rinfo) => this.receive(datagram, rinfo));
    socket.on('error', (err) => this.logger.warn('socket error', { error: describeError(err) }));
    this.metricsTimer = setInterval(() => this.publish(), options.metricsIntervalMs);
    this.metricsTimer.unref();
    this.publish();
    health.report(healthName, 'receiver', 'ok', null);
    this.logger.info('receiver listening', { address: this.listening, name: this.profile.name });
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    if (!socket) return;
    this.socket = null;
    if (this.metricsTimer) clearInterval(this.metricsTimer);
    this.metricsTimer = null;
    // Datagrams already read get committed and answered before the socket goes.
    this.stopping = socket;
    this.deps.ingest.drain();
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.stopping = null;
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    this.listening = null;
    this.publish();
    // Removed, not 'stopped': a receiver deleted from the settings must not keep /health at 503;
    // restart-services reports it 'starting' again straight away.
    this.deps.health.remove(this.profile.healthName);
    this.logger.info('receiver stopped');
  }

  publish(): void {
    this.counters.publish(this.deps.health, this.profile.healthName, this.listening);
  }

  private receive(datagram: Buffer, rinfo: RemoteInfo): void {
    // Stopping: what arrives now could not be answered after its commit; the device repeats it.
    if (!this.socket) return;
    const counters = this.counters;
    const frame = decodeDatagram(datagram);
    if (frame.kind === 'rejected') {
      counters.rejected++;
      return;
    }
    counters.frames++;
    const now = this.deps.clock.now();
    const decision = this.profile.decide(frame.body, now);
    switch (decision.action) {
      case 'nak':
        counters.naks++;
        this.send(decision.reply, rinfo);
        return;
      case 'duh':
        counters.duhs++;
        this.send(decision.reply, rinfo);
        return;
      case 'ignore':
        // Replies echoed back and device-link bodies: the link needs TCP.
        if (decision.foreign) counters.linkIgnored++;
        return;
      case 'ack':
        break;
    }
    if (this.inFlight >= this.maxInFlight) {
      // Bounded memory: unanswered, the transmitter repeats it (§5.3 retry rules).
      counters.dropped++;
      return;
    }
    if (decision.linkTest) counters.linkTests++;
    const item: FrameItem = {
      kind: 'frame', receiver: this.profile.ref, transport: 'udp', remoteAddress: formatAddress(rinfo.address, rinfo.port),
      receivedAt: now, session: null, raw: frame.raw, events: decision.events, linkTest: decision.linkTest === true,
      account: decision.message?.account ?? null, device: null,
    };
    this.inFlight++;
    const reply = decision.reply;
    this.deps.ingest.submit([item]).then(
      (results) => {
        this.inFlight--;
        counters.acks++;
        counters.events += results[0]!.eventIds.length;
        this.send(reply, rinfo);
      },
      () => {
        this.inFlight--;
      },
    );
  }

  private send(reply: Buffer | null, rinfo: RemoteInfo): void {
    const socket = this.socket ?? this.stopping;
    if (!reply || !socket) return;
    socket.send(reply, rinfo.port, rinfo.address, (err) => {
      if (err) this.logger.debug('reply not sent', { remote: formatAddress(rinfo.address, rinfo.port), error: describeError(err) });
    });
  }
}
