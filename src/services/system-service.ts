/**
 * The box itself (GET /api/system, POST /api/system/restart and the page's System view; docs/backup.md
 * "API" and "Page"): scope `system_update` for all of it, because the same view downloads every secret
 * of the box. What it reports is what exists today: the running version, the instance, how the last
 * run ended, free space, a staged restore, and the A/B system slots with the last update
 * (docs/updates.md); `slots` is null where the system has no A/B slots or no RAUC.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../core/clock.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { BackupHeader, HeaderFacts } from '../backup/backup-format.js';
import { PENDING_DIR, PENDING_HEADER } from '../backup/stage-restore.js';
import { LAST_RUN_COMPONENT } from '../system/run-recorder.js';
import { STORAGE_HEALTH } from '../system/storage-space.js';
import { FORBIDDEN, mayUpdateSystem, type Forbidden, type Principal } from './principal.js';
import type { ChannelFacts } from '../update/update-channel.js';
import { updateFacts, type InstallRecordView, type UpdatePort } from './update-service.js';
import type { SlotsReport } from '../update/update-system.js';

/**
 * A restart asked for less than this after the start is refused: systemd reboots the box after 5 starts
 * in 10 minutes (systemd/vigil.service StartLimitBurst), and API restarts must never reach that.
 */
export const RESTART_MIN_UPTIME_MS = 180_000;
/** The stop begins this long after the answer, so the answer reaches the caller first. */
export const RESTART_DELAY_MS = 500;

export interface SystemPortDeps {
  readonly dataDir: string;
  instanceId(): string | null;
  readonly requestStop?: () => void;
  /** A/B updates (docs/updates.md); absent: not available on this system. */
  readonly update?: UpdatePort;
}

export interface SystemDeps {
  readonly version: string;
  readonly startedAt: number;
  readonly clock: Clock;
  readonly health: HealthRegistry;
  readonly settings: { current(): { general: { instance_name: string } } };
  readonly system: SystemPortDeps;
  readonly logger: Logger;
}

export type BackupFacts = HeaderFacts;

export interface SystemReport {
  readonly version: string;
  readonly instance_id: string | null;
  readonly instance_name: string;
  readonly started_at: string;
  /** How the previous run ended (the `last-run` health component); null before it reported. */
  readonly last_run: {
    readonly detail: string | null;
    readonly how: string | null;
    readonly at: string | null;
    readonly rebooted: boolean | null;
  } | null;
  /** Free space for the data dir in MiB (the `storage-space` component); null when not measured. */
  readonly data_free_mib: number | null;
  /** A restore staged and waiting for the next start; null when none. */
  readonly restore_pending: BackupFacts | null;
  readonly restart_available: boolean;
  /** The A/B system slots; null where updates are not available (no A/B slots, no RAUC). */
  readonly slots: SlotsReport | null;
  /** The last install of a system bundle; null when none was ever installed. */
  readonly update: InstallRecordView | null;
  /** A rollback nobody acknowledged yet (it lights the trouble LED). */
  readonly rollback_unacknowledged: boolean;
  /** The update channel the box polls; null where updates are not available. */
  readonly channel: ChannelFacts | null;
}

/** The header facts of a staged restore, or null (also for an unreadable header: apply-restore decides). */
export function pendingRestore(dataDir: string): BackupFacts | null {
  let header: BackupHeader;
  try {
    header = JSON.parse(readFileSync(join(dataDir, PENDING_DIR, PENDING_HEADER), 'utf8')) as BackupHeader;
  } catch {
    return null;
  }
  return headerFacts(header);
}

/** The facts of a backup header a technician reads; never its key material (salt, iv, key check). */
export function headerFacts(header: BackupHeader): BackupFacts {
  return {
    app_version: header.app_version,
    schema_version: header.schema_version,
    instance_id: header.instance_id,
    instance_name: header.instance_name,
    created_at: header.created_at,
    journal: header.journal,
  };
}

function iso(ms: unknown): string | null {
  return typeof ms === 'number' && Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

export async function systemReport(
  deps: SystemDeps,
  principal: Principal,
): Promise<Forbidden | { kind: 'ok'; report: SystemReport }> {
  if (!mayUpdateSystem(principal)) return FORBIDDEN;
  const updates = await updateFacts({ ...deps, update: deps.system.update });
  const lastRun = deps.health.get(LAST_RUN_COMPONENT);
  const storage = deps.health.get(STORAGE_HEALTH);
  const free = storage?.metrics.free_mib;
  return {
    kind: 'ok',
    report: {
      version: deps.version,
      instance_id: deps.system.instanceId() || null,
      instance_name: deps.settings.current().general.instance_name,
      started_at: new Date(deps.startedAt).toISOString(),
      last_run: lastRun
        ? {
            detail: lastRun.detail,
            how: typeof lastRun.metrics.how === 'string' ? lastRun.metrics.how : null,
            at: iso(lastRun.metrics.at),
            rebooted: typeof lastRun.metrics.rebooted === 'boolean' ? lastRun.metrics.rebooted : null,
          }
        : null,
      data_free_mib: typeof free === 'number' ? free : null,
      restore_pending: pendingRestore(deps.system.dataDir),
      restart_available: deps.system.requestStop !== undefined,
      ...updates,
    },
  };
}

export type RestartGatewayOutcome =
  | Forbidden
  | { readonly kind: 'unavailable' }
  | { readonly kind: 'too-soon'; readonly retryAfterSeconds: number }
  | { readonly kind: 'ok' };

/**
 * Ends the gateway cleanly so systemd starts it again (and a staged restore is applied). The stop runs
 * after RESTART_DELAY_MS, once the answer is on its way.
 */
export function restartGateway(deps: SystemDeps, principal: Principal): RestartGatewayOutcome {
  if (!mayUpdateSystem(principal)) return FORBIDDEN;
  const stop = deps.system.requestStop;
  if (!stop) return { kind: 'unavailable' };
  const uptime = deps.clock.now() - deps.startedAt;
  if (uptime < RESTART_MIN_UPTIME_MS)
    return { kind: 'too-soon', retryAfterSeconds: Math.ceil((RESTART_MIN_UPTIME_MS - uptime) / 1000) };
  deps.logger.warn('gateway restart requested', {
    by: principal.subject,
    restore_pending: pendingRestore(deps.system.dataDir) !== null,
  });
  // requestStop ignores repeats (src/cli.ts shutdown): a second request meanwhile changes nothing.
  setTimeout(stop, RESTART_DELAY_MS);
  return { kind: 'ok' };
}
