/**
 * A DC-09 UDP receiver (SIA DC-09 §5.3): transport only. Its socket is a datagram channel into
 * one FrameSession, which decides each datagram as one frame; the reply goes to the sender's
 * address and port, an ACK only after the commit. Datagrams are independent: a bad one is dropped
 * unanswered and touches nothing else. No device link (TCP only, docs/device-link.md §1) and no
 * session rows (there is no connection). Health `rx:udp:<id>`.
 * A UDP source address can be forged, so the receiver is no amplifier (docs/receivers.md §UDP): every
 * datagram is admitted through the receiver's door of the admission component (docs/security.md
 * "Admission"): a token bucket per source (IPv4 address, IPv6 /64) and one for all strangers
 * together, so forged sources cannot crowd out the devices; a reply longer than its datagram goes
 * only to a known source (one that has had a frame ACKed, or an object reported from).
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { lookup as dnsLookup, type LookupOneOptions } from 'node:dns';
import { isIP, isIPv6 } from 'node:net';
import { VigilError, describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import { SOURCE_LIMIT_DEFAULTS, type UdpListenerSettings } from '../settings/schema-receivers.js';
import { formatAddress, type ReceiverDeps } from './receiver-deps.js';
import { UDP_MAX_IN_FLIGHT_FACTOR } from './receiver-options.js';
import { FrameSession } from './frame-session.js';
import type { DatagramChannel } from './frame-channel.js';
import { Dc09Rules } from './dc09-rules.js';
import { ReceiverCounters } from './receiver-counters.js';
import { sourceKey } from '../core/source-key.js';
import type { RateDoor } from '../core/admission/doors.js';

export const UDP_RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string, family: number) => void;

/**
 * The socket's address lookup (dgram's `lookup` option). dgram resolves the address of every send
 * through dns.lookup, which answers even an IP literal on the next tick: each ACK then waited
 * until the whole commit's bookkeeping had run (the bus, supervision, metrics) instead of leaving
 * when it was decided, and 10 UDP devices lost a tenth of their rate (bench/ingest.ts, case
 * udp:10; docs/benchmarks.md §Ingest). Replies only go to the address the kernel reported for a datagram,
 * always a literal: passed back at once, so the send happens inside socket.send(). Anything else
 * (never expected) still goes to DNS.
 */
export function literalLookup(address: string, options: LookupOneOptions | number, callback: LookupCallback): void {
  // Node passes the socket's family as a number, whatever its type declarations say.
  const family = typeof options === 'number' ? options : options.family === 6 || options.family === 'IPv6' ? 6 : 4;
  const literal = isIP(address);
  if (literal !== 0) {
    callback(null, address, literal);
    return;
  }
  dnsLookup(address, { family }, callback);
}

export class UdpReceiver implements Service {
  readonly name: string;
  readonly counters = new ReceiverCounters();
  private readonly rules: Dc09Rules;
  private readonly settings: UdpListenerSettings;
  private readonly deps: ReceiverDeps;
  private readonly logger: Logger;
  private readonly channel: DatagramChannel<RemoteInfo> = {
    framing: 'datagram',
    transport: 'udp',
    reply: (data, rinfo) => this.send(data, rinfo),
    // An ACKed frame of a settled account makes its source a known device: longer replies may go there from now on.
    acked: (rinfo, settled) => {
      if (settled) this.deps.admission.devices.add(sourceKey(rinfo.address));
    },
  };
  /** This receiver's door: datagrams per source, and for all strangers together. */
  private readonly door: RateDoor;
  private sweepTimer: NodeJS.Timeout | null = null;
  private session: FrameSession<RemoteInfo> | null = null;
  private socket: Socket | null = null;
  /** The socket replies still go out through while stop() lets the last commits finish. */
  private stopping: Socket | null = null;
  private listening: string | null = null;
  private metricsTimer: NodeJS.Timeout | null = null;

  constructor(settings: UdpListenerSettings, deps: ReceiverDeps) {
    this.settings = settings;
    const rate = settings.max_datagrams_per_source_per_s ?? SOURCE_LIMIT_DEFAULTS.max_datagrams_per_source_per_s;
    const admission = deps.admission;
    // Two seconds' worth at once: a device's retransmissions and a NAT's worth of panels after an outage.
    this.door = admission.rateDoor(
      'udp',
      admission.derived((limits) => ({
        perSource: { perS: rate, burst: rate * 2 },
        total: { perS: limits.udp_stranger_datagrams_per_s, burst: limits.udp_stranger_datagrams_per_s * 2 },
        totalForStrangers: true,
      })),
    );
    this.rules = new Dc09Rules('udp', settings);
    this.name = this.rules.healthName;
    this.deps = deps;
    this.logger = deps.logger.child(`udp:${settings.id}`);
  }

  get address(): string | null {
    return this.listening;
  }

  async start(): Promise<void> {
    if (this.socket) return;
    const { health, options } = this.deps;
    const { bind_address: bindAddress, port } = this.settings;
    const healthName = this.rules.healthName;
    health.report(healthName, 'receiver', 'starting', null);
    // A 4 MiB receive buffer rides out bursts from many devices while the loop is busy; the
    // kernel caps it at net.core.rmem_max (raise that on the appliance, docs/receivers.md).
    const socket = createSocket({
      type: isIPv6(bindAddress) ? 'udp6' : 'udp4',
      recvBufferSize: UDP_RECEIVE_BUFFER_BYTES,
      lookup: literalLookup,
    });
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
    this.sweepTimer = setInterval(() => this.door.sweep(this.deps.clock.now()), options.sourceSweepMs);
    this.sweepTimer.unref();
    const { ingest, links, clock } = this.deps;
    this.session = new FrameSession(this.channel, {
      rules: this.rules,
      counters: this.counters,
      ingest,
      links,
      clock,
      logger: this.logger,
      maxInFlight: options.maxInFlight * UDP_MAX_IN_FLIGHT_FACTOR,
      newObjects: this.deps.newObjects,
    });
    socket.on('message', (datagram, rinfo) => this.receive(datagram, rinfo));
    socket.on('error', (err) => this.logger.warn('socket error', { error: describeError(err) }));
    this.metricsTimer = setInterval(() => this.publish(), options.metricsIntervalMs);
    this.metricsTimer.unref();
    this.publish();
    health.report(healthName, 'receiver', 'ok', null);
    this.logger.info('receiver listening', { address: this.listening, name: this.rules.name });
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    if (!socket) {
      // Never started, or failed to bind: its `failed` entry goes too (Service: stop() after a failed start).
      this.deps.health.remove(this.rules.healthName);
      return;
    }
    this.socket = null;
    if (this.metricsTimer) clearInterval(this.metricsTimer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.metricsTimer = this.sweepTimer = null;
    // Datagrams already read get committed and answered before the socket goes.
    this.stopping = socket;
    this.deps.ingest.drain();
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.session?.close();
    this.session = null;
    this.stopping = null;
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    this.listening = null;
    this.publish();
    // Removed, not 'stopped': a receiver deleted from the settings must not keep /health at 503;
    // restart-services reports it 'starting' again straight away.
    this.deps.health.remove(this.rules.healthName);
    this.logger.info('receiver stopped');
  }

  publish(): void {
    this.counters.publish(this.deps.health, this.rules.healthName, this.listening);
  }

  private receive(datagram: Buffer, rinfo: RemoteInfo): void {
    // Stopping: what arrives now could not be answered after its commit; the device repeats it.
    if (!this.socket) return;
    // Over its rate a source's datagrams are not even decided: no commit, no reply (it repeats later).
    const source = sourceKey(rinfo.address);
    if (!this.door.take(source)) {
      this.counters.rateLimited++;
      return;
    }
    this.session?.feedDatagram(datagram, formatAddress(rinfo.address, rinfo.port), rinfo, source);
  }

  private send(reply: Buffer, rinfo: RemoteInfo): void {
    const socket = this.socket ?? this.stopping;
    if (!socket) return;
    // No amplification toward a forged source: a reply longer than the datagram (a DUH or NAK to
    // a few bytes) goes only to a source known to be a device. An ACK is never longer than its frame.
    if (reply.length > rinfo.size && !this.deps.admission.devices.has(sourceKey(rinfo.address))) {
      this.counters.repliesWithheld++;
      return;
    }
    socket.send(reply, rinfo.port, rinfo.address, (err) => {
      if (err)
        this.logger.debug('reply not sent', {
          remote: formatAddress(rinfo.address, rinfo.port),
          error: describeError(err),
        });
    });
  }
}
