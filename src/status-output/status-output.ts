/**
 * The device status output (settings `device_status_output`, docs/status-output.md): a TCP server
 * that streams object state changes to third-party dashboards. Each client gets a hello frame and
 * a snapshot of every object's state at connect, then the live changes.
 *
 * A slow client never slows ingest: publish() encodes a frame once and hands it to each socket
 * without waiting; what a client has not taken yet waits in its socket buffer, which is bounded
 * (maxQueueBytes on top of the client's snapshot). A client over its bound is disconnected and
 * counted; it reconnects and its new snapshot makes its view whole again (a dropped frame would
 * instead leave it showing a wrong state with no way to notice).
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { Clock } from '../core/clock.js';
import { VigilError, describeError } from '../core/errors.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import { isLoopback } from '../core/loopback.js';
import type { Service } from '../core/service.js';
import type { RandomBytes } from '../protocols/dc09/crypto.js';
import { StatusEncoder, changeFrame, type StatusChange, type StatusFrame } from './frame.js';

export const STATUS_OUTPUT_HEALTH = 'status-output';
export const DEFAULT_MAX_CLIENTS = 32;
export const DEFAULT_MAX_QUEUE_BYTES = 256 * 1024;
export const DEFAULT_HEARTBEAT_MS = 30_000;

export interface StatusOutputOptions {
  readonly port: number;
  readonly host: string;
  /** The 16-character key when encryption_enabled, else null. */
  readonly encryptionKey: string | null;
  readonly instanceName: string;
  /** Every object's current state (kind 'state'), sent to each client at connect. */
  readonly snapshot: () => readonly StatusChange[];
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
}

export interface StatusOutputDeps {
  readonly health: HealthRegistry;
  readonly logger: Logger;
  readonly clock: Clock;
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
}

interface Client {
  readonly socket: Socket;
  readonly address: string;
  /** writableLength above which the client is dropped. */
  readonly limit: number;
}

export class StatusOutput implements Service {
  readonly name = STATUS_OUTPUT_HEALTH;
  readonly stats: StatusOutputStats = {
    clients: 0,
    frames: 0,
    droppedClients: 0,
    refusedClients: 0,
    refusedPlainClients: 0,
  };
  private readonly options: StatusOutputOptions;
  private readonly deps: StatusOutputDeps;
  private readonly clients = new Set<Client>();
  private server: Server | null = null;
  private encoder: StatusEncoder | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private detach: (() => void) | null = null;

  constructor(options: StatusOutputOptions, deps: StatusOutputDeps) {
    this.options = options;
    this.deps = deps;
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
    for (const client of this.clients) client.socket.destroy();
    this.clients.clear();
    this.stats.clients = 0;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
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
    for (const client of this.clients) this.send(client, bytes);
  }

  private send(client: Client, bytes: Buffer): void {
    if (client.socket.destroyed) return;
    if (client.socket.writableLength + bytes.length > client.limit) {
      this.stats.droppedClients++;
      this.deps.logger.warn('status client too slow, disconnected', {
        client: client.address,
        queued_bytes: client.socket.writableLength,
      });
      this.remove(client);
      client.socket.destroy();
      return;
    }
    client.socket.write(bytes);
  }

  private accept(socket: Socket): void {
    const address = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? 0}`;
    if (this.options.encryptionKey === null && !(this.options.isLocal ?? isLoopback)(socket.remoteAddress)) {
      this.stats.refusedPlainClients++;
      this.deps.logger.warn(
        'status client refused: an unencrypted status output serves the box itself only (set encryption_enabled)',
        { client: address },
      );
      socket.destroy();
      this.updateMetrics();
      return;
    }
    if (this.clients.size >= (this.options.maxClients ?? DEFAULT_MAX_CLIENTS) || !this.encoder) {
      this.stats.refusedClients++;
      this.deps.logger.warn('status client refused: too many clients', { client: address });
      socket.destroy();
      this.updateMetrics();
      return;
    }
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 30_000);
    // The stream is one-way: whatever a client sends is read and discarded so it cannot pile up.
    socket.resume();
    const greeting = this.greeting();
    const client: Client = {
      socket,
      address,
      limit: greeting.length + (this.options.maxQueueBytes ?? DEFAULT_MAX_QUEUE_BYTES),
    };
    this.clients.add(client);
    socket.on('error', (err) => this.deps.logger.debug('status client error', { client: address, error: err.message }));
    socket.on('close', () => this.remove(client));
    socket.write(greeting);
    this.deps.logger.info('status client connected', { client: address, clients: this.clients.size });
    this.updateMetrics();
  }

  /** The hello frame and the snapshot, as one buffer. */
  private greeting(): Buffer {
    const encoder = this.encoder as StatusEncoder;
    let states: readonly StatusChange[] = [];
    try {
      states = this.options.snapshot();
    } catch (err) {
      this.deps.logger.error('status snapshot failed; client gets live changes only', { error: describeError(err) });
    }
    const at = this.deps.clock.now();
    const parts = [encoder.encode({ type: 'hello', at, instance: this.options.instanceName, objects: states.length })];
    for (const state of states) parts.push(encoder.encode(changeFrame(state)));
    return Buffer.concat(parts);
  }

  private remove(client: Client): void {
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
    });
  }

  private report(state: 'starting' | 'ok' | 'failed', detail: string | null): void {
    this.deps.health.report(STATUS_OUTPUT_HEALTH, 'output', state, detail);
  }
}
