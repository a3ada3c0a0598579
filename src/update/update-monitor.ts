/**
 * The gateway's side of an update after it is installed (docs/updates.md "Confirming"): at every start
 * it reconciles the record with the booted slot (activated, rolled back), journals what happened once,
 * and confirms the booted slot with `rauc status mark-good`:
 *   - an ordinary start: as soon as the self-check passes (the store takes writes), so reboots never use
 *     up the boot tries;
 *   - a trial start (the booted slot is installed and not yet confirmed): only after the gateway has
 *     stayed healthy (self-check passing and every configured receiver listening) for the grace period.
 *     If it never gets there, the image's trial timer reboots and the boot loader falls back.
 * It also reports the `update` health component, degraded while a rollback is unacknowledged, which
 * lights the trouble LED and shows on the Status view.
 */
import { describeError } from '../core/errors.js';
import { endedRuns, readRunRecord, runRecordPath } from '../system/run-record.js';
import type { HealthRegistry } from '../core/health.js';
import type { Service } from '../core/service.js';
import { removeIncomingLeftover } from './installer.js';
import { markRollbackReasonReported, readRollbackReason } from './rollback-reason.js';
import { readUpdateRecord, rollbackUnacknowledged, writeUpdateRecord, type UpdateEventType } from './update-record.js';
import type { UpdateSystem } from './update-system.js';
import { atStart, owedEvents, trialReasonFor } from './update-transitions.js';

export const UPDATE_COMPONENT = 'update';
export const UPDATE_CHECK_INTERVAL_MS = 5_000;

export interface UpdateMonitorDeps {
  readonly system: UpdateSystem;
  readonly health: HealthRegistry;
  /** Self-check passing: event loop, journal writer, store writable. */
  readonly selfCheckPassing: () => boolean;
  /** Every configured receiver listening (true with none configured). */
  readonly receiversListening: () => boolean;
  readonly journal: (type: UpdateEventType, detail: string) => void;
  readonly intervalMs?: number;
}

export class UpdateMonitor implements Service {
  readonly name = UPDATE_COMPONENT;
  private readonly deps: UpdateMonitorDeps;
  private timer: NodeJS.Timeout | null = null;
  private healthySince: number | null = null;
  private confirmed = false;
  private busy = false;

  constructor(deps: UpdateMonitorDeps) {
    this.deps = deps;
  }

  async start(): Promise<void> {
    const { system } = this.deps;
    const booted = system.bootedSlot();
    if (booted === null) return; // no A/B slots: nothing to confirm or report
    if (removeIncomingLeftover(system.dataDir, system.clock.now(), true))
      system.logger.warn('removed a half-received update bundle');
    const install = readUpdateRecord(system.dataDir).install;
    // Read before the record changes, moved aside only after: a cut in between reports it at the next start.
    const trialReason = readRollbackReason(system.dataDir);
    let used = false;
    if (install) {
      const transition = atStart(install, {
        booted,
        bootId: system.bootId(),
        runs: endedRuns(readRunRecord(runRecordPath(system.dataDir))),
        triesLeft: system.bootState()?.triesLeft[install.slot] ?? null,
        trialReason,
      });
      if (transition.record !== install) writeUpdateRecord(system.dataDir, { install: transition.record });
      used =
        install.outcome === 'pending' &&
        transition.record.outcome === 'rolled_back' &&
        trialReasonFor(install.slot, trialReason) !== null;
    }
    if (trialReason) {
      // Not about the last install (a slot written outside the gateway): the log keeps it, once.
      if (!used) system.logger.warn('the trial timer rolled a slot back', { ...trialReason });
      markRollbackReasonReported(system.dataDir);
    }
    this.reconcile();
    this.timer = setInterval(() => void this.tick(), this.deps.intervalMs ?? UPDATE_CHECK_INTERVAL_MS);
    this.timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Journals what the record owes and reports the component; also after an install or an acknowledge. */
  reconcile(): void {
    const { system } = this.deps;
    const booted = system.bootedSlot();
    if (booted === null) return;
    const record = readUpdateRecord(system.dataDir);
    const install = record.install;
    if (install) {
      const owed = owedEvents(install, booted);
      if (owed.length > 0) {
        for (const event of owed) this.deps.journal(event.type, event.detail);
        writeUpdateRecord(system.dataDir, {
          install: { ...install, journaled: [...install.journaled, ...owed.map((e) => e.type)] },
        });
      }
    }
    if (rollbackUnacknowledged(record)) {
      this.deps.health.report(UPDATE_COMPONENT, 'update', 'degraded', `update rolled back: ${install!.reason}`);
    } else if (install?.outcome === 'pending' && install.slot !== booted) {
      this.deps.health.report(
        UPDATE_COMPONENT,
        'update',
        'ok',
        `version ${install.to_version} installed in slot ${install.slot}; it starts at the next reboot`,
      );
    } else if (system.onTrial() && !this.confirmed) {
      this.deps.health.report(
        UPDATE_COMPONENT,
        'update',
        'ok',
        `slot ${booted} on trial: confirmed after ${system.graceMs / 1000} s of health`,
      );
    } else {
      this.deps.health.report(UPDATE_COMPONENT, 'update', 'ok', `slot ${booted}, version ${system.version}`);
    }
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      this.reconcile();
      if (!this.confirmed) await this.confirmWhenHealthy();
    } catch (err) {
      this.deps.system.logger.error('update check failed', { error: describeError(err) });
    } finally {
      this.busy = false;
    }
  }

  private async confirmWhenHealthy(): Promise<void> {
    const { system } = this.deps;
    const booted = system.bootedSlot();
    const pending = readUpdateRecord(system.dataDir).install;
    // A pending install booted in its slot is on trial even when the boot state file cannot be read.
    const trial = system.onTrial() || (pending?.outcome === 'pending' && pending.slot === booted);
    const now = system.clock.now();
    const healthy = this.deps.selfCheckPassing() && (!trial || this.deps.receiversListening());
    if (!healthy) {
      this.healthySince = null;
      return;
    }
    this.healthySince ??= now;
    if (trial && now - this.healthySince < system.graceMs) return;
    await system.rauc.markGood();
    this.confirmed = true;
    const install = readUpdateRecord(system.dataDir).install;
    if (install?.outcome === 'pending' && install.slot === booted) {
      writeUpdateRecord(system.dataDir, {
        install: { ...install, outcome: 'confirmed', reason: `healthy for ${system.graceMs / 1000} s` },
      });
    }
    system.logger.info('slot marked good', { slot: booted, trial });
    this.reconcile();
  }
}
