/**
 * A DC-09 TCP receiver (SIA DC-09 §5.2): transport only. It binds `bind_address:port`, gives
 * every connection its own FrameSession and reports health as `rx:tcp:<id>`. It never interprets
 * bytes itself. Limits (docs/receivers.md §Limits): idle timeout, keep-alive, max connections;
 * every connection is admitted through the receiver's door of the admission component
 * (docs/security.md "Admission"): open connections and accepts per source, then a slot in the
 * descriptor budget every door shares, where strangers are shed first; a short idle timeout
 * until the first valid frame. stop() lets queued frames commit and their ACKs leave, then closes
 * every connection (devices reconnect).
 */
import { createServer, type Server, type Socket } from 'node:net';
import { VigilError, describeError } from '../core/errors.js';
import type { Service } from '../core/service.js';
import { SOURCE_LIMIT_DEFAULTS, type TcpListenerSettings } from '../settings/schema-receivers.js';
import type { SocketDoor } from '../core/admission/doors.js';
import { perMinute } from '../core/admission/rate-table.js';
import { FrameSession } from './frame-session.js';
import type { StreamChannel } from './frame-channel.js';
import { Dc09Rules } from './dc09-rules.js';
import { ReceiverCounters } from './receiver-counters.js';
import { closeGracefully, formatAddress, listenTcp, type ReceiverDeps } from './receiver-deps.js';
import type { SessionDeps } from './session-deps.js';
import { sourceKey } from '../core/source-key.js';

export class TcpReceiver implements Service {
  readonly name: string;
  readonly counters = new ReceiverCounters();
  private readonly rules: Dc09Rules;
  private readonly settings: TcpListenerSettings;
  private readonly deps: ReceiverDeps;
  private readonly sessionDeps: SessionDeps;
  private readonly sessions = new Map<Socket, FrameSession>();
  private readonly firstFrameTimeoutMs: number;
  /** This receiver's door: its per-source limits, and its share of the descriptor budget. */
  private readonly door: SocketDoor;
  private server: Server | null = null;
  private listening: string | null = null;
  private metricsTimer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;

  constructor(settings: TcpListenerSettings, deps: ReceiverDeps) {
    this.settings = settings;
    const accepts = perMinute(
      settings.max_accepts_per_source_per_min ?? SOURCE_LIMIT_DEFAULTS.max_accepts_per_source_per_min,
    );
    const perSource = settings.max_connections_per_source ?? SOURCE_LIMIT_DEFAULTS.max_connections_per_source;
    const doorLimits = { perSource, total: deps.options.maxConnections, accepts };
    this.door = deps.admission.socketDoor('tcp', () => doorLimits);
    this.firstFrameTimeoutMs = Math.min(
      deps.options.idleTimeoutMs,
      (settings.first_frame_timeout_s ?? SOURCE_LIMIT_DEFAULTS.first_frame_timeout_s) * 1000,
    );
    this.rules = new Dc09Rules('tcp', settings);
    this.name = this.rules.healthName;
    this.deps = deps;
    this.sessionDeps = {
      rules: this.rules,
      deviceLink: this.rules,
      counters: this.counters,
      ingest: deps.ingest,
      links: deps.links,
      clock: deps.clock,
      logger: deps.logger.child(`tcp:${settings.id}`),
      maxInFlight: deps.options.maxInFlight,
      admission: deps.admission,
      newObjects: deps.newObjects,
    };
  }

  /** "host:port" actually bound, null when not listening. */
  get address(): string | null {
    return this.listening;
  }

  async start(): Promise<void> {
    if (this.server) return;
    const { health, options } = this.deps;
    const { bind_address: bindAddress, port } = this.settings;
    const healthName = this.rules.healthName;
    health.report(healthName, 'receiver', 'starting', null);
    const server = createServer(
      { noDelay: true, keepAlive: true, keepAliveInitialDelay: options.keepAliveMs },
      (socket) => this.accept(socket),
    );
    server.maxConnections = options.maxConnections;
    server.on('drop', () => this.counters.refused++);
    try {
      this.listening = await listenTcp(server, port, bindAddress);
    } catch (err) {
      const detail = `cannot listen on ${formatAddress(bindAddress, port)}: ${describeError(err)}`;
      this.counters.publish(health, healthName, null);
      health.report(healthName, 'receiver', 'failed', detail);
      this.sessionDeps.logger.error('receiver failed to start', { error: detail });
      throw new VigilError('SERVICE_FAILED', detail, [], { cause: err });
    }
    this.server = server;
    this.sweepTimer = setInterval(() => this.door.sweep(this.deps.clock.now()), options.sourceSweepMs);
    this.sweepTimer.unref();
    server.on('error', (err) => {
      this.sessionDeps.logger.error('listener error', { error: describeError(err) });
      health.report(healthName, 'receiver', 'failed', `listener error: ${describeError(err)}`);
    });
    this.metricsTimer = setInterval(() => this.publish(), options.metricsIntervalMs);
    this.metricsTimer.unref();
    this.publish();
    health.report(healthName, 'receiver', 'ok', null);
    this.sessionDeps.logger.info('receiver listening', { address: this.listening, name: this.rules.name });
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) {
      // Never started, or failed to bind: its `failed` entry goes too (Service: stop() after a failed start).
      this.deps.health.remove(this.rules.healthName);
      return;
    }
    this.server = null;
    if (this.metricsTimer) clearInterval(this.metricsTimer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.metricsTimer = this.sweepTimer = null;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sessions.keys()) socket.pause();
    // Frames already read get committed and ACKed before the connections go.
    this.deps.ingest.drain();
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (const [socket, session] of this.sessions) {
      session.close();
      socket.end();
      // Read on (into a closed session, which ignores it) so the peer's FIN is seen and the socket closes.
      socket.resume();
    }
    await closeGracefully([...this.sessions.keys()], this.deps.options.closeGraceMs);
    this.sessions.clear();
    this.counters.connections = 0;
    this.deps.ingest.drain();
    await closed;
    this.listening = null;
    this.publish();
    // Removed, not 'stopped': a receiver deleted from the settings must not keep /health at 503;
    // restart-services reports it 'starting' again straight away.
    this.deps.health.remove(this.rules.healthName);
    this.sessionDeps.logger.info('receiver stopped');
  }

  /** Copies the counters to the health entry now (a timer does it every metricsIntervalMs). */
  publish(): void {
    this.counters.publish(this.deps.health, this.rules.healthName, this.listening);
    const pool = this.deps.admission.pool;
    this.deps.health.setMetrics(this.rules.healthName, { budget_limit: pool.limit, budget_used: pool.used });
  }

  private accept(socket: Socket): void {
    const { counters, deps } = this;
    const key = sourceKey(socket.remoteAddress ?? '');
    const ticket = this.door.admit(key, () => {
      counters.shed++;
      socket.destroy();
    });
    if (typeof ticket === 'string') {
      if (ticket === 'source-rate') counters.refusedRate++;
      else if (ticket === 'source-sockets') counters.refusedSource++;
      else if (ticket === 'door-sockets') counters.refused++;
      else counters.refusedBudget++;
      socket.destroy();
      return;
    }
    let trusted = false;
    const trust = (): void => {
      trusted = true;
      ticket.trust();
      socket.setTimeout(deps.options.idleTimeoutMs);
    };
    const known = (): void => {
      if (!deps.admission.devices.has(key)) deps.admission.devices.add(key);
    };
    const remote = formatAddress(socket.remoteAddress ?? '?', socket.remotePort ?? 0);
    const session = new FrameSession(socketChannel(socket, remote, key, trust, known), this.sessionDeps);
    this.sessions.set(socket, session);
    counters.accepted++;
    counters.connections = this.sessions.size;
    // Until its first valid frame a connection gets the short idle timeout (first_frame_timeout_s).
    socket.setTimeout(this.firstFrameTimeoutMs);
    socket.on('data', (chunk: Buffer) => {
      if (!trusted) ticket.touch();
      session.feed(chunk);
    });
    socket.on('drain', () => session.drained());
    socket.on('timeout', () => {
      if (!trusted) {
        counters.firstFrameTimeouts++;
        deps.admission.refused('tcp', 'timeout');
      }
      socket.destroy();
    });
    // 'close' always follows 'error'; nothing else to do with the error of one device.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      session.close();
      ticket.release();
      if (this.sessions.delete(socket)) counters.connections = this.sessions.size;
    });
  }
}

/** A TCP connection as the session's stream: one device, with session rows (docs/receivers.md). */
function socketChannel(
  socket: Socket,
  remoteAddress: string,
  source: string,
  trusted: () => void,
  settled: () => void,
): StreamChannel {
  return {
    framing: 'stream',
    transport: 'tcp',
    remoteAddress,
    source,
    sessionRows: true,
    write: (data) => socket.write(data),
    pause: () => socket.pause(),
    resume: () => socket.resume(),
    trusted,
    settled,
  };
}
