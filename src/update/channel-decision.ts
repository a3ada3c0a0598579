/**
 * Pure: what a box does about a verified channel manifest (docs/updates.md "When a box installs"), and
 * the sentence the System view shows for it. In order:
 *   - never an older version, nothing for the same one;
 *   - a version already installed and waiting: reboot into it (when allowed and the gates are open);
 *   - a version that rolled back on this box is not tried again: a newer one is needed;
 *   - only in the current wave, only with automatic install on, never while the running slot is on
 *     trial, only with the gates open (window, outputs, alarms: channel-gates.ts).
 */
import type { SlotName } from './boot-state.js';
import type { InstallRecord } from './update-record.js';
import { compareVersions } from './versions.js';

export type ChannelAction = 'none' | 'install' | 'reboot';

export interface DecisionFacts {
  readonly offered: string;
  readonly running: string;
  readonly record: InstallRecord | null;
  readonly booted: SlotName;
  /** This box's place in the rollout (0..100) and the current wave's percent. */
  readonly bucket: number;
  readonly wavePercent: number;
  readonly autoInstall: boolean;
  readonly autoReboot: boolean;
  readonly onTrial: boolean;
  /** Why the gates are closed, or null (channel-gates.ts). */
  readonly gate: string | null;
}

export interface Decision {
  readonly action: ChannelAction;
  readonly text: string;
  /** The gates hold it back: worth looking again soon rather than at the next poll. */
  readonly gated: boolean;
}

const none = (text: string, gated = false): Decision => ({ action: 'none', text, gated });

export function decide(f: DecisionFacts): Decision {
  const order = compareVersions(f.offered, f.running);
  if (order < 0)
    return none(
      `the channel offers ${f.offered}, older than the running ${f.running}: a channel never installs an older version`,
    );
  if (order === 0) return none(`up to date: the channel offers the running version ${f.running}`);
  const record = f.record?.to_version === f.offered ? f.record : null;
  if (record?.outcome === 'rolled_back')
    return none(`version ${f.offered} rolled back on this box: waiting for a newer version on the channel`);
  if (record?.outcome === 'pending' && record.slot !== f.booted) {
    if (!f.autoReboot)
      return none(
        `version ${f.offered} is installed in slot ${record.slot}; it starts at the next reboot (automatic reboot is off)`,
      );
    if (f.gate)
      return none(`version ${f.offered} is installed in slot ${record.slot}; the reboot waits: ${f.gate}`, true);
    return {
      action: 'reboot',
      text: `version ${f.offered} is installed: rebooting into slot ${record.slot}`,
      gated: false,
    };
  }
  if (f.bucket >= f.wavePercent)
    return none(
      `version ${f.offered} is not for this box yet: its place in the rollout is ${f.bucket.toFixed(1)}, the current wave reaches ${f.wavePercent} %`,
    );
  if (!f.autoInstall) return none(`version ${f.offered} is available; automatic install is off`);
  if (f.onTrial) return none(`version ${f.offered} waits until the running slot ${f.booted} is confirmed`, true);
  if (f.gate) return none(`version ${f.offered} waits: ${f.gate}`, true);
  return { action: 'install', text: `installing version ${f.offered}`, gated: false };
}
