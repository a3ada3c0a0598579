/**
 * Free space for the journal (docs/store.md §Free space). The SD card fills when the journal grows
 * faster than retention removes it: a busy site with a long `remove_events_age`, or an enabled
 * output down for weeks holding its backlog (docs/retention.md). Once full, no commit succeeds and
 * no device gets an ACK. This watch raises the trouble well before that, while there is still
 * time for a person to act: component `storage` (kind `storage`) goes `degraded`, the trouble LED
 * shows the store pattern (docs/leds.md) and a `store_trouble` internal event reaches the
 * central station (docs/internal-events.md); `ok` again raises `store_restored`.
 *
 * Space counted: what the data directory's file system still gives an unprivileged writer
 * (statfs f_bavail) plus the free pages inside the database file (SQLite's freelist). Retention
 * deletes rows but never shrinks the file; new rows fill those pages first. Figures: `free_mib`,
 * `total_mib`, `trouble_below_mib`.
 *
 * It warns and deletes nothing: events past their age already go by retention, and removing events
 * that are younger, or not yet delivered, would lose what a person relies on being kept.
 */
import { statfsSync } from 'node:fs';
import { describeError } from '../core/errors.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';

export const STORAGE_HEALTH = 'storage';

export interface StorageThresholds {
  readonly intervalMs: number;
  /** Trouble below the larger of this many bytes... */
  readonly minFreeBytes: number;
  /** ...and this share of the file system, ... */
  readonly minFreeFraction: number;
  /**
   * ...the share counting at most this many bytes: on a large disk 5 % is weeks of journal (50 GB
   * of a 1 TB disk), a warning nobody would act on yet.
   */
  readonly maxFractionBytes: number;
  /** Restored only above trouble level × this: a journal hovering at the line does not flap. */
  readonly restoreFactor: number;
}

/**
 * On a 16 GB card: trouble below 5 % (≈ 800 MB), restored above ≈ 1 GB. At 10 events/s, a busy
 * site (180-430 MB of journal a day at 210-500 B per event), that is two to four days' warning;
 * from a 43 GB file system up, the 2 GiB cap: five to twelve days.
 */
export const DEFAULT_STORAGE_THRESHOLDS: StorageThresholds = {
  intervalMs: 60_000,
  minFreeBytes: 256 * 1024 * 1024,
  minFreeFraction: 0.05,
  maxFractionBytes: 2 * 1024 * 1024 * 1024,
  restoreFactor: 1.25,
};

export interface SpaceFigures {
  /** Size of the file system. */
  readonly totalBytes: number;
  /** Free for an unprivileged writer, plus the database's free pages. */
  readonly freeBytes: number;
}

/** Trouble level for a file system of this size. */
export function troubleBelow(totalBytes: number, thresholds: StorageThresholds): number {
  return Math.max(
    thresholds.minFreeBytes,
    Math.min(totalBytes * thresholds.minFreeFraction, thresholds.maxFractionBytes),
  );
}

/** Pure: is the space low, given whether it was low at the last check (hysteresis)? */
export function spaceIsLow(figures: SpaceFigures, thresholds: StorageThresholds, wasLow: boolean): boolean {
  const below = troubleBelow(figures.totalBytes, thresholds);
  return figures.freeBytes < (wasLow ? below * thresholds.restoreFactor : below);
}

const wholeMiB = (bytes: number): number => Math.floor(bytes / 1024 / 1024);

/** 1,234,567,890 → "1177.4 MiB", as the detail shows it. */
function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export interface StorageSpaceDeps {
  /** Directory whose file system holds the database (the data dir). */
  readonly dir: string;
  readonly health: HealthRegistry;
  /** Bytes of free pages inside the database file (Store.freePageBytes). */
  readonly freePageBytes: () => number;
  readonly logger: Logger;
  readonly thresholds?: Partial<StorageThresholds>;
}

export class StorageSpaceWatch implements Service {
  readonly name = 'storage-space';
  readonly thresholds: StorageThresholds;
  private readonly deps: StorageSpaceDeps;
  private timer: NodeJS.Timeout | null = null;
  private low = false;
  /** What the component says now: a new state or a new kind of detail is reported, figures alone are updated. */
  private said: 'ok' | 'low' | 'unreadable' | null = null;

  constructor(deps: StorageSpaceDeps) {
    this.deps = deps;
    this.thresholds = { ...DEFAULT_STORAGE_THRESHOLDS, ...deps.thresholds };
  }

  async start(): Promise<void> {
    if (this.timer) return;
    this.check();
    this.timer = setInterval(() => this.check(), this.thresholds.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.said = null;
    this.deps.health.remove(STORAGE_HEALTH);
  }

  /** One check now: reads the space, reports it (state on a change, figures always); the figures, or null when unreadable. */
  check(): SpaceFigures | null {
    const { health, logger } = this.deps;
    let figures: SpaceFigures;
    try {
      const stats = statfsSync(this.deps.dir);
      figures = {
        totalBytes: stats.blocks * stats.bsize,
        freeBytes: stats.bavail * stats.bsize + this.deps.freePageBytes(),
      };
    } catch (err) {
      this.said = 'unreadable';
      health.report(STORAGE_HEALTH, 'storage', 'degraded', `free space unreadable: ${describeError(err)}`, {});
      return null;
    }
    const below = troubleBelow(figures.totalBytes, this.thresholds);
    const low = spaceIsLow(figures, this.thresholds, this.low);
    // Whole MiB: the status page and `vigil status` show figures as they are, and a person reads these.
    const metrics = {
      free_mib: wholeMiB(figures.freeBytes),
      total_mib: wholeMiB(figures.totalBytes),
      trouble_below_mib: wholeMiB(below),
    };
    if (low && !this.low) logger.warn('storage low on space', metrics);
    if (!low && this.low) logger.info('storage space restored', metrics);
    this.low = low;
    const says = low ? 'low' : 'ok';
    if (this.said === says) {
      health.setMetrics(STORAGE_HEALTH, metrics);
    } else {
      this.said = says;
      const detail = low
        ? `low on space: ${mib(figures.freeBytes)} free of ${mib(figures.totalBytes)}, trouble below ${mib(below)}`
        : null;
      health.report(STORAGE_HEALTH, 'storage', low ? 'degraded' : 'ok', detail, metrics);
    }
    return figures;
  }
}
