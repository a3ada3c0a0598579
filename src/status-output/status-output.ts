/**
 * The device status output (settings `device_status_output`, docs/status-output.md): a TCP server
 * that streams object state changes to third-party dashboards. A client gets a hello frame and
 * a snapshot of every object's state, then the live changes (status-client.ts).
 *
 * A stranger reaching the port takes its share of the admission budget (docs/security.md
 * "Admission"): connects per source, clients per source and in all, a slot in the descriptor
 * budget. With encryption the client must prove the key before anything but a small challenge is
 * sent, and the snapshot is read and encoded in slices that yield: connecting costs the box
 * nothing a stranger can repeat, and nothing that holds up an ACK.
 *
 * A slow client never slows ingest: publish() encodes a frame once and hands it to each client
 * without waiting; a client more than maxQueueBytes behind is disconnected and counted (it
 * reconnects, and its new snapshot makes its view whole again).
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { Admission } from '../core/admission/admission.js';
import type { SocketDoor, SocketTicket } from '../core/admission/doors.js';
import { perMinute } from '../core/admission/rate-table.js';
import type { Clock } from '../core/clock.js';
import { VigilError, describeError } from '../core/errors.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import { isLoopback } from '../core/loopback.js';
import type { Service } from '../core/service.js';
import { sourceKey } from '../core/source-key.js';
import type { RandomBytes } from '../protocols/dc09/crypto.js';
import { StatusEncoder, changeFrame, type StatusChange, type StatusFrame } from './frame.js';
import { StatusClient, type SnapshotSource } from './status-client.js';
import { Slicer } from './slicer.js';

export const STATUS_OUTPUT_HEALTH = 'status-output';
export const DEFAULT_MAX_CLIENTS = 32;
export const DEFAULT_MAX_QUEUE_BYTES = 256 * 1024;
export const DEFAULT_HEARTBEAT_MS = 30_000;
/** How long an encrypted output waits for a client's proof of the key. */
export const PROOF_TIMEOUT_MS = 10_000;
/** Clients of one source at once. */
export const MAX_CLIENTS_PER_SOURCE = 8;
/** Objects read from the store per slice of a snapshot. */
export const SNAPSHOT_PAGE = 200;

export interface StatusOutputOptions {
  readonly port: number;
  readonly host: string;
  /** The 16-character key when encryption_enabled, else null. */
  readonly encryptionKey: string | null;
  readonly instanceName: string;
  /** The objects, read in pages for each client's snapshot (feed.ts snapshotSource). */
  readonly objects: SnapshotSource;
  readonly maxClients?: number;
  /** Bytes a client may leave unread beyond its snapshot before it is disconnected. */
  readonly maxQueueBytes?: number;
  /** Interval of heartbeat frames; 0 sends none. */
  readonly heartbeatMs?: number;
  /**
   * Which peers are the box itself (default: loopback). Without encryption the feed carries every
   * object's UID and account in clear and has no login, so it serves only those peers.
   */
  readonly isLocal?: (address: string | undefined) => boolean;
  /** Connects the producers (feed.ts) once listening; the returned function disconnects them at stop. */
  readonly attach?: (output: StatusOutput) => () => void;
  /** How long a client has to prove the key (default PROOF_TIMEOUT_MS). */
  readonly proofMs?: number;
}

export interface StatusOutputDeps {
  readonly health: HealthRegistry;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Every connection is admitted through the output's door (docs/security.md "Admission"). */
  readonly admission: Admission;
  readonly randomBytes?: RandomBytes;
}

export interface StatusOutputStats {
  clients: number;
  /** Live frames encoded (each sent to every client connected at the time). */
  frames: number;
  /** Clients disconnected because they fell more than maxQueueBytes behind. */
  droppedClients: number;
  /** Connections refused because maxClients were connected. */
  refusedClients: number;
  /** Connections from another host refused because the output is not encrypted. */
  refusedPlainClients: number;
  /** Clients closed because they did not prove the key in time. */
  unprovenClients: number;
}

export class StatusOutput implements Service {
  readonly name = STATUS_OUTPUT_HEALTH;
  readonly stats: StatusOutputStats = {
    clients: 0,
    frames: 0,
    droppedClients: 0,
    refusedClients: 0,
    refusedPlainClients: 0,
    unprovenClients: 0,
  };
  private readonly options: StatusOutputOptions;
  private readonly deps: StatusOutputDeps;
  private readonly door: SocketDoor;
  /** Clients that proved the key (or need not): they get the snapshot and the live frames. */
  private readonly clients = new Set<StatusClient>();
  /** Every admitted connection, proven or not, with its admission ticket. */
  private readonly connections = new Map<StatusClient, SocketTicket>();
  private readonly slicer = new Slicer();
  private server: Server | null = null;
  private encoder: StatusEncoder | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private detach: (() => void) | null = null;

  constructor(options: StatusOutputOptions, deps: StatusOutputDeps) {
    this.options = options;
    this.deps = deps;
    const { admission } = deps;
    const total = options.maxClients ?? DEFAULT_MAX_CLIENTS;
    this.door = admission.socketDoor(
      'status-output',
      admission.derived((limits) => ({
        perSource: Math.min(total, MAX_CLIENTS_PER_SOURCE),
        total,
        accepts: perMinute(limits.status_output_connects_per_source_per_min),
      })),
      // Its clients keep their share of the budget; a dashboard's source is trusted once it proves the key.
      { standing: 'users', floor: () => total },
    );
  }

  async start(): Promise<void> {
    if (this.server) return;
    const { host, port } = this.options;
    this.report('starting', null);
    try {
      this.encoder = new StatusEncoder(this.options.encryptionKey, this.deps.randomBytes);
      const server = createServer((socket) => this.accept(socket));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      server.on('error', (err) => this.deps.logger.error('status output server error', { error: describeError(err) }));
      this.server = server;
      this.door.serving(true);
    } catch (err) {
      const reason = describeError(err);
      this.report('failed', `cannot listen on ${host}:${port}: ${reason}`);
      throw new VigilError('SERVICE_FAILED', `status output cannot listen on ${host}:${port}: ${reason}`, [], {
        cause: err,
      });
    }
    const heartbeatMs = this.options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    if (heartbeatMs > 0) {
      this.heartbeat = setInterval(() => this.broadcast({ type: 'heartbeat', at: this.deps.clock.now() }), heartbeatMs);
      this.heartbeat.unref();
    }
    this.detach = this.options.attach?.(this) ?? null;
    this.report('ok', `listening on ${host}:${this.port()}${this.encoder.encrypted ? ', encrypted' : ''}`);
    this.deps.logger.info('status output listening', { host, port: this.port(), encrypted: this.encoder.encrypted });
  }

  async stop(): Promise<void> {
    this.detach?.();
    this.detach = null;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    const server = this.server;
    this.server = null;
    for (const client of [...this.connections.keys()]) client.close();
    this.clients.clear();
    this.stats.clients = 0;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    this.door.serving(false);
    this.deps.health.remove(STATUS_OUTPUT_HEALTH);
  }

  /** The bound port (useful when configured as 0 in tests); 0 when not listening. */
  port(): number {
    const address = this.server?.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  /** Sends one object state change to every connected client. Never waits, never throws. */
  publish(change: StatusChange): void {
    this.broadcast(changeFrame(change));
  }

  /** True while at least one client listens: producers may skip building changes otherwise. */
  get listening(): boolean {
    return this.clients.size > 0;
  }

  private broadcast(frame: StatusFrame): void {
    if (this.clients.size === 0 || !this.encoder) return;
    let bytes: Buffer;
    try {
      bytes = this.encoder.encode(frame);
    } catch (err) {
      this.deps.logger.error('cannot encode status frame', { error: describeError(err) });
      return;
    }
    if (frame.type !== 'heartbeat') this.stats.frames++;
    for (const client of this.clients) client.send(bytes);
  }

  private accept(socket: Socket): void {
    const address = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? 0}`;
    socket.on('error', (err) => this.deps.logger.debug('status client error', { client: address, error: err.message }));
    const encrypted = this.options.encryptionKey !== null;
    if (!encrypted && !(this.options.isLocal ?? isLoopback)(socket.remoteAddress)) {
      this.stats.refusedPlainClients++;
      this.deps.admission.refused('status-output', 'unproven');
      this.deps.logger.warn(
        'status client refused: an unencrypted status output serves the box itself only (set encryption_enabled)',
        { client: address },
      );
      socket.destroy();
      this.updateMetrics();
      return;
    }
    const encoder = this.encoder;
    const ticket = this.door.admit(sourceKey(socket.remoteAddress ?? ''), () => socket.destroy());
    if (typeof ticket === 'string' || !encoder) {
      this.stats.refusedClients++;
      this.deps.logger.debug('status client refused', { client: address, reason: String(ticket) });
      socket.destroy();
      this.updateMetrics();
      return;
    }
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 30_000);
    const client = new StatusClient(socket, address, {
      encoder,
      proofKey: this.options.encryptionKey,
      proofMs: this.options.proofMs ?? PROOF_TIMEOUT_MS,
      instanceName: this.options.instanceName,
      objects: this.options.objects,
      now: () => this.deps.clock.now(),
      maxQueueBytes: this.options.maxQueueBytes ?? DEFAULT_MAX_QUEUE_BYTES,
      pageSize: SNAPSHOT_PAGE,
      slicer: this.slicer,
      proven: (c) => {
        ticket.trust();
        this.clients.add(c);
        this.deps.logger.info('status client connected', { client: address, clients: this.clients.size });
        this.updateMetrics();
      },
      unproven: (c) => {
        this.stats.unprovenClients++;
        this.deps.admission.refused('status-output', 'unproven');
        this.deps.logger.info('status client closed: no proof of the key', { client: address });
        c.close();
      },
      tooSlow: (c) => {
        this.stats.droppedClients++;
        this.deps.logger.warn('status client too slow, disconnected', {
          client: address,
          queued_bytes: c.socket.writableLength,
        });
        c.close();
      },
      failed: (c, err) => {
        this.deps.logger.error('status snapshot failed; client disconnected', { error: describeError(err) });
        c.close();
      },
    });
    this.connections.set(client, ticket);
    socket.on('close', () => this.remove(client));
    client.begin();
  }

  private remove(client: StatusClient): void {
    const ticket = this.connections.get(client);
    if (!ticket) return;
    this.connections.delete(client);
    ticket.release();
    client.close();
    if (!this.clients.delete(client)) return;
    this.deps.logger.info('status client disconnected', { client: client.address, clients: this.clients.size });
    this.updateMetrics();
  }

  private updateMetrics(): void {
    this.stats.clients = this.clients.size;
    this.deps.health.setMetrics(STATUS_OUTPUT_HEALTH, {
      clients: this.stats.clients,
      frames: this.stats.frames,
      dropped_clients: this.stats.droppedClients,
      refused_clients: this.stats.refusedClients,
      refused_plain_clients: this.stats.refusedPlainClients,
      unproven_clients: this.stats.unprovenClients,
    });
  }

  private report(state: 'starting' | 'ok' | 'failed', detail: string | null): void {
    this.deps.health.report(STATUS_OUTPUT_HEALTH, 'output', state, detail);
  }
}
