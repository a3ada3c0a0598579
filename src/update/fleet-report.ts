/**
 * What the box tells the central database of its system updates (docs/updates.md "Watching a rollout"):
 * the slot it runs, the last install — version, slot, outcome, reason, when — and its update channel's
 * state in one line. The MySQL sync writes it into `installations` whenever it changes.
 */
import type { ChannelFacts } from './update-channel.js';
import { readUpdateRecord } from './update-record.js';
import type { UpdateSystem } from './update-system.js';

export interface UpdateReport {
  readonly slot: string | null;
  readonly update: {
    readonly version: string;
    readonly slot: string;
    readonly outcome: string;
    readonly reason: string | null;
    readonly installedAt: string;
  } | null;
  readonly channel: string | null;
}

export function updateReport(system: UpdateSystem, channel: ChannelFacts | null): UpdateReport | null {
  const slot = system.bootedSlot();
  if (slot === null) return null;
  const install = readUpdateRecord(system.dataDir).install;
  let line: string | null = null;
  if (channel?.url) line = channel.error ? `${channel.error.code}: ${channel.error.message}` : channel.decision;
  return {
    slot,
    update: install && {
      version: install.to_version,
      slot: install.slot,
      outcome: install.outcome,
      reason: install.reason,
      installedAt: install.installed_at,
    },
    channel: line,
  };
}
