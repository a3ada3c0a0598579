/**
 * System updates for the API and the page (docs/updates.md), one function per operation, each taking the
 * principal (scope `system_update`): install a bundle (the same installBundle `vigil update install`
 * runs), acknowledge a rollback, reboot the box. Routes only translate HTTP.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { installBundle, type InstallProgress, type UpdateRefusal } from '../update/installer.js';
import { writeRebootRequest } from '../update/reboot-request.js';
import {
  readUpdateRecord,
  rollbackUnacknowledged,
  writeUpdateRecord,
  type InstallRecord,
} from '../update/update-record.js';
import type { ChannelFacts } from '../update/update-channel.js';
import type { SlotsReport, UpdateSystem } from '../update/update-system.js';
import { FORBIDDEN, mayUpdateSystem, type Forbidden, type Principal } from './principal.js';

/** What /api/system* and the System view reach of the update machinery. */
export interface UpdatePort {
  readonly system: UpdateSystem;
  /** The monitor's reconcile: journals what a new record owes and refreshes the `update` component. */
  readonly reconcile: () => void;
  /** Bounds of an upload other than installBundle's defaults; tests only. */
  readonly limits?: { readonly maxBytes?: number; readonly reserveBytes?: number };
  /** The update channel the box polls (src/update/update-channel.ts); absent in tests without one. */
  readonly channel?: { facts(): ChannelFacts; checkNow(): Promise<ChannelFacts> };
}

export interface UpdateServiceDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly update?: UpdatePort | undefined;
}

export interface UpdateFacts {
  readonly slots: SlotsReport | null;
  readonly update: InstallRecordView | null;
  readonly rollback_unacknowledged: boolean;
  /** The update channel (docs/updates.md "The update channel"); null where updates are not available. */
  readonly channel: ChannelFacts | null;
}

export type InstallRecordView = Omit<InstallRecord, 'journaled' | 'boot_id'>;

function view(record: InstallRecord): InstallRecordView {
  const { journaled: _journaled, boot_id: _bootId, ...rest } = record;
  return rest;
}

/** The update part of GET /api/system; slots null where updates are not available (docs/updates.md). */
export async function updateFacts(deps: UpdateServiceDeps): Promise<UpdateFacts> {
  if (!deps.update) return { slots: null, update: null, rollback_unacknowledged: false, channel: null };
  const { system } = deps.update;
  const record = readUpdateRecord(system.dataDir);
  const slots = await system.slotsReport();
  return {
    slots,
    update: record.install ? view(record.install) : null,
    rollback_unacknowledged: rollbackUnacknowledged(record),
    // The channel's own account, even when RAUC does not answer for the slots right now.
    channel: deps.update.channel && system.bootedSlot() !== null ? deps.update.channel.facts() : null,
  };
}

const UNAVAILABLE: UpdateRefusal = {
  kind: 'refused',
  code: 'UPDATE_UNAVAILABLE',
  message: 'system updates are not available on this system (no A/B slots or no RAUC)',
};

export async function installUpdate(
  deps: UpdateServiceDeps,
  principal: Principal,
  request: {
    readonly body: AsyncIterable<Uint8Array> | null;
    readonly allowDowngrade: boolean;
    readonly onProgress?: (progress: InstallProgress) => void;
  },
): Promise<Forbidden | UpdateRefusal | { kind: 'installed'; record: InstallRecordView }> {
  if (!mayUpdateSystem(principal)) return FORBIDDEN;
  if (!deps.update) return UNAVAILABLE;
  deps.logger.warn('update upload', { by: principal.subject, allow_downgrade: request.allowDowngrade });
  const outcome = await installBundle(deps.update.system, {
    ...request,
    ...(deps.update.limits ? { limits: deps.update.limits } : {}),
  });
  if (outcome.kind === 'refused') return outcome;
  deps.update.reconcile();
  return { kind: 'installed', record: view(outcome.record) };
}

export async function acknowledgeRollback(
  deps: UpdateServiceDeps,
  principal: Principal,
): Promise<Forbidden | { kind: 'nothing' } | { kind: 'ok'; record: InstallRecordView }> {
  if (!mayUpdateSystem(principal)) return FORBIDDEN;
  if (!deps.update) return { kind: 'nothing' };
  const { dataDir } = deps.update.system;
  const record = readUpdateRecord(dataDir);
  if (!rollbackUnacknowledged(record) || !record.install) return { kind: 'nothing' };
  const install = { ...record.install, acknowledged_at: new Date(deps.clock.now()).toISOString() };
  writeUpdateRecord(dataDir, { install });
  deps.logger.warn('rollback acknowledged', { by: principal.subject, to_version: install.to_version });
  deps.update.reconcile();
  return { kind: 'ok', record: view(install) };
}

/** Checks the update channel now (the System view's Check now, POST /api/system/update/check). */
export async function checkChannel(
  deps: UpdateServiceDeps,
  principal: Principal,
): Promise<Forbidden | { kind: 'unavailable' } | { kind: 'no-channel' } | { kind: 'ok'; channel: ChannelFacts }> {
  if (!mayUpdateSystem(principal)) return FORBIDDEN;
  const channel = deps.update?.channel;
  if (!deps.update || !channel || deps.update.system.bootedSlot() === null) return { kind: 'unavailable' };
  if (channel.facts().url === null) return { kind: 'no-channel' };
  deps.logger.info('update channel check asked', { by: principal.subject });
  return { kind: 'ok', channel: await channel.checkNow() };
}

/** Asks the image's reboot unit to reboot the box (src/update/reboot-request.ts). */
export function rebootBox(
  deps: UpdateServiceDeps,
  principal: Principal,
): Forbidden | { kind: 'unavailable' } | { kind: 'ok' } {
  if (!mayUpdateSystem(principal)) return FORBIDDEN;
  if (!deps.update || deps.update.system.bootedSlot() === null) return { kind: 'unavailable' };
  writeRebootRequest(deps.update.system.dataDir, `requested by ${principal.subject}`, deps.clock.now());
  deps.logger.warn('reboot requested', { by: principal.subject });
  return { kind: 'ok' };
}
