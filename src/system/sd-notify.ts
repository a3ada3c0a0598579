/**
 * systemd readiness and watchdog (sd_notify(3)): READY=1 once everything started, WATCHDOG=1 at half
 * of WATCHDOG_USEC — but only while the internal checks pass, so a wedged store or a blocked event
 * loop gets the process restarted.
 *
 * The datagrams leave from the gateway's own process (unix-dgram: Node has no AF_UNIX SOCK_DGRAM), so
 * systemd attributes every one to the service's main PID. A spawned `systemd-notify` would race:
 * systemd-notify(1) warns that a message from a short-lived child that has exited before systemd reads
 * it cannot be matched to its unit ("Cannot find unit for notify message of PID"), and a lost
 * WATCHDOG=1 gets a healthy gateway killed.
 */
import { createSocket, type UnixDgramSocket } from 'unix-dgram';
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';

export interface NotifierOptions {
  readonly env: NodeJS.ProcessEnv;
  /** True when the process is healthy enough to be kept alive (store writable, loop turning). */
  readonly healthy: () => boolean;
  /** The status line `systemctl status` shows, sent with the next notification whenever it changes. */
  readonly status?: () => string;
  readonly logger: Logger;
}

/** One sd_notify(3) message: `KEY=value` lines; STATUS= is one line (newlines would end it early). */
export function notifyMessage(fields: ReadonlyArray<readonly [string, string]>): Buffer {
  return Buffer.from(fields.map(([key, value]) => `${key}=${value.replace(/\n/g, ' ')}\n`).join(''));
}

export class SystemdNotifier implements Service {
  readonly name = 'sd-notify';
  private readonly options: NotifierOptions;
  private timer: NodeJS.Timeout | null = null;
  private socket: UnixDgramSocket | null = null;
  private lastStatus = 'serving';

  constructor(options: NotifierOptions) {
    this.options = options;
  }

  /** Half of WATCHDOG_USEC in ms (sd_watchdog_enabled(3)), or null when no watchdog is set. */
  watchdogIntervalMs(): number | null {
    const usec = Number(this.options.env.WATCHDOG_USEC);
    if (!Number.isFinite(usec) || usec <= 0) return null;
    const pid = this.options.env.WATCHDOG_PID;
    if (pid && Number(pid) !== process.pid) return null;
    return Math.max(100, Math.floor(usec / 2000));
  }

  async start(): Promise<void> {
    const path = this.socketPath();
    if (path === null) return;
    this.socket = createSocket('unix_dgram');
    // Errors of a send arrive in its callback; anything else on the socket is logged, never thrown.
    this.socket.on('error', (err: Error) =>
      this.options.logger.warn('sd_notify socket error', { error: describeError(err) }),
    );
    this.lastStatus = this.options.status?.() ?? 'serving';
    this.send(path, [
      ['READY', '1'],
      ['STATUS', this.lastStatus],
    ]);
    const interval = this.watchdogIntervalMs();
    if (interval === null) return;
    this.timer = setInterval(() => {
      const status = this.options.status?.() ?? this.lastStatus;
      const fields: Array<[string, string]> = status === this.lastStatus ? [] : [['STATUS', status]];
      this.lastStatus = status;
      if (this.options.healthy()) fields.push(['WATCHDOG', '1']);
      else this.options.logger.warn('health checks failing: watchdog not fed');
      if (fields.length > 0) this.send(path, fields);
    }, interval);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const path = this.socketPath();
    if (this.socket && path !== null) this.send(path, [['STOPPING', '1']]);
    this.socket?.close();
    this.socket = null;
  }

  /** NOTIFY_SOCKET as a file path; null when unset or abstract (systemd gives services a path). */
  private socketPath(): string | null {
    const path = this.options.env.NOTIFY_SOCKET;
    if (!path) return null;
    if (!path.startsWith('/')) {
      this.options.logger.error('NOTIFY_SOCKET is not a file path: readiness and watchdog are not sent', {
        socket: path,
      });
      return null;
    }
    return path;
  }

  private send(path: string, fields: ReadonlyArray<readonly [string, string]>): void {
    const message = notifyMessage(fields);
    try {
      this.socket?.send(message, 0, message.length, path, (err) => {
        if (err) this.options.logger.warn('sd_notify failed', { error: describeError(err) });
      });
    } catch (err) {
      this.options.logger.warn('sd_notify failed', { error: describeError(err) });
    }
  }
}
