/**
 * systemd readiness and watchdog (sd_notify(3)). Node has no unix datagram sockets, so this spawns
 * `systemd-notify` (platform notes; zigbee2mqtt lib/util/sd-notify.ts does the same job): READY=1
 * once everything started, WATCHDOG=1 at half of WATCHDOG_USEC — but only while the internal
 * checks pass, so a wedged store or a blocked event loop gets the process restarted.
 */
import { spawn } from 'node:child_process';
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';

export type NotifyRunner = (args: string[], env: NodeJS.ProcessEnv) => Promise<void>;

export const spawnSystemdNotify: NotifyRunner = (args, env) =>
  new Promise((resolve, reject) => {
    const child = spawn('systemd-notify', args, { env, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`systemd-notify exited with ${code}`))));
  });

export interface NotifierOptions {
  readonly env: NodeJS.ProcessEnv;
  /** True when the process is healthy enough to be kept alive (store writable, loop turning). */
  readonly healthy: () => boolean;
  /** The status line `systemctl status` shows, sent with the next notification whenever it changes. */
  readonly status?: () => string;
  readonly logger: Logger;
  readonly run?: NotifyRunner;
}

export class SystemdNotifier implements Service {
  readonly name = 'sd-notify';
  private readonly options: NotifierOptions;
  private timer: NodeJS.Timeout | null = null;
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
    if (!this.options.env.NOTIFY_SOCKET) return;
    this.lastStatus = this.options.status?.() ?? 'serving';
    await this.send(['--ready', `--status=${this.lastStatus}`]);
    const interval = this.watchdogIntervalMs();
    if (interval !== null) {
      this.timer = setInterval(() => {
        const healthy = this.options.healthy();
        const status = this.options.status?.() ?? this.lastStatus;
        const args = status === this.lastStatus ? [] : [`--status=${status}`];
        this.lastStatus = status;
        if (healthy) args.push('WATCHDOG=1');
        else this.options.logger.warn('health checks failing: watchdog not fed');
        if (args.length > 0) void this.send(args);
      }, interval);
      this.timer.unref();
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.options.env.NOTIFY_SOCKET) await this.send(['STOPPING=1']);
  }

  private async send(args: string[]): Promise<void> {
    try {
      // --no-block: do not wait for systemd to process it (platform notes).
      await (this.options.run ?? spawnSystemdNotify)(['--no-block', ...args], this.options.env);
    } catch (err) {
      this.options.logger.warn('sd_notify failed', { error: describeError(err) });
    }
  }
}
