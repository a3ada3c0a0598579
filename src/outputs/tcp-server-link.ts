/**
 * TCP server link of a type 5 output: Vigil listens and the automation software connects to it (how Patriot,
 * Manitou and MASterMind are often wired to a Sur-Gard receiver). One automation client at a time: a new allowed
 * connection REPLACES the current one, because an automation server that restarted (or whose NAT entry was dropped)
 * reconnects at once while its old half-open connection may linger for minutes; refusing the newcomer would leave
 * the alarms undelivered until keep-alive notices. The message in flight on the old connection is then unanswered and
 * is sent again on the new one (at least once, in order). A client not on the allow-list is closed at once, before
 * any byte is read or written. The link never interprets bytes (docs/outputs.md §TCP server).
 */
import { createServer, type Server, type Socket } from 'node:net';
import { VigilError, describeError } from '../core/errors.js';
import type { PassiveLink } from './byte-link.js';
import type { ClientAllowList } from './client-allow-list.js';

export interface TcpServerLinkOptions {
  /** Bind address (an IP literal; 0.0.0.0 / :: for every interface). */
  readonly host: string;
  /** 0 picks a free port (tests). */
  readonly port: number;
  readonly allowList: ClientAllowList;
  /** A client outside the allow-list was closed ("host:port"). */
  readonly onRefused?: (remote: string) => void;
  /** A new client replaced the connected one. */
  readonly onReplaced?: (previous: string, next: string) => void;
}

/** Detects a silently vanished client (cable pulled) between heartbeats, as on the TCP client link. */
const KEEPALIVE_MS = 15_000;

function remoteOf(socket: Socket): string {
  const host = socket.remoteAddress ?? '?';
  return host.includes(':') ? `[${host}]:${socket.remotePort ?? 0}` : `${host}:${socket.remotePort ?? 0}`;
}

export class TcpServerLink implements PassiveLink {
  readonly passive = true as const;
  readonly framing = 'stream' as const;
  readonly description: string;
  private readonly o: TcpServerLinkOptions;
  private server: Server | null = null;
  private bound: string | null = null;
  private socket: Socket | null = null;
  private remote: string | null = null;
  private waiting: Socket | null = null;
  private dataListener: (chunk: Buffer) => void = () => undefined;
  private closeListener: (reason: string) => void = () => undefined;
  private waitingListener: () => void = () => undefined;
  private refused = 0;

  constructor(options: TcpServerLinkOptions) {
    this.o = options;
    const host = options.host.includes(':') ? `[${options.host}]` : options.host;
    this.description = `tcp server ${host}:${options.port}`;
  }

  get connected(): boolean {
    return this.socket !== null;
  }

  get clientWaiting(): boolean {
    return this.waiting !== null;
  }

  /** "host:port" actually bound (the real port when 0 was asked), null while not listening. */
  get listeningOn(): string | null {
    return this.bound;
  }

  get refusedClients(): number {
    return this.refused;
  }

  /** "host:port" of the adopted client, null when none. */
  get client(): string | null {
    return this.remote;
  }

  listen(): Promise<void> {
    if (this.server) return Promise.resolve();
    const server = createServer({ noDelay: true }, (socket) => this.accept(socket));
    return new Promise((resolve, reject) => {
      server.once('error', (err) =>
        reject(new VigilError('SERVICE_FAILED', `cannot listen on ${this.description}: ${describeError(err)}`)),
      );
      server.listen({ host: this.o.host, port: this.o.port, exclusive: true }, () => {
        server.removeAllListeners('error');
        // A running server's errors (EMFILE on accept) must not crash the worker; the next accept retries.
        server.on('error', () => undefined);
        const address = server.address();
        if (address && typeof address === 'object') {
          this.bound = address.address.includes(':')
            ? `[${address.address}]:${address.port}`
            : `${address.address}:${address.port}`;
        }
        this.server = server;
        resolve();
      });
    });
  }

  connect(): Promise<void> {
    if (this.socket) return Promise.resolve();
    const socket = this.waiting;
    if (!socket || socket.destroyed) {
      this.waiting = null;
      return Promise.reject(new VigilError('SERVICE_FAILED', `${this.description}: no automation client connected`));
    }
    this.waiting = null;
    this.adopt(socket);
    return Promise.resolve();
  }

  write(bytes: Buffer): void {
    if (!this.socket) throw new VigilError('SERVICE_FAILED', `${this.description}: no automation client connected`);
    this.socket.write(bytes);
  }

  onData(listener: (chunk: Buffer) => void): void {
    this.dataListener = listener;
  }

  onClose(listener: (reason: string) => void): void {
    this.closeListener = listener;
  }

  onClientWaiting(listener: () => void): void {
    this.waitingListener = listener;
  }

  /** Closes the client and stops listening; listen() may be called again. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.bound = null;
    this.waiting?.destroy();
    this.waiting = null;
    const socket = this.socket;
    this.socket = null;
    this.remote = null;
    socket?.removeAllListeners('data');
    socket?.removeAllListeners('close');
    socket?.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    socket.on('error', () => undefined);
    const remote = remoteOf(socket);
    if (!this.o.allowList.allows(socket.remoteAddress ?? '')) {
      socket.destroy();
      this.refused++;
      this.o.onRefused?.(remote);
      return;
    }
    // A client that connected but was not adopted yet is superseded by the newer one as well.
    this.waiting?.destroy();
    this.waiting = socket;
    socket.once('close', () => {
      if (this.waiting === socket) this.waiting = null;
    });
    const previous = this.socket;
    if (previous) {
      const previousRemote = this.remote ?? '?';
      this.socket = null;
      this.remote = null;
      previous.removeAllListeners('data');
      previous.removeAllListeners('close');
      previous.destroy();
      this.o.onReplaced?.(previousRemote, remote);
      this.closeListener(`replaced by a new client from ${remote}`);
    }
    this.waitingListener();
  }

  private adopt(socket: Socket): void {
    socket.setNoDelay(true);
    socket.setKeepAlive(true, KEEPALIVE_MS);
    socket.removeAllListeners('close');
    this.socket = socket;
    this.remote = remoteOf(socket);
    let lastError = 'closed by client';
    socket.on('data', (chunk: Buffer) => this.dataListener(chunk));
    socket.on('error', (err) => (lastError = describeError(err)));
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.remote = null;
      this.closeListener(lastError);
    });
  }
}
