/**
 * The box's A/B update facilities as one injectable object (docs/updates.md): the rauc client, where
 * the booted slot and the boot state are read from, the data dir that holds the record, the running
 * version. Built from the environment by the CLI and the gateway; tests pass their own paths and a rauc
 * that runs here. Reads only; installing is src/update/installer.ts, confirming update-monitor.ts.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { currentBootId } from '../system/run-recorder.js';
import {
  DEFAULT_BOOT_ENV_PATH,
  DEFAULT_CMDLINE_PATH,
  readBootedSlot,
  readBootState,
  SLOT_NAMES,
  type BootState,
  type SlotName,
} from './boot-state.js';
import { RaucClient, raucOptionsFromEnv, type RaucOptions } from './rauc-client.js';
import type { RaucStatus } from './rauc-status.js';

export interface UpdateSystemOptions {
  readonly dataDir: string;
  readonly version: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly rauc?: RaucOptions;
  readonly cmdlinePath?: string;
  readonly bootEnvPath?: string;
  readonly bootId?: () => string;
  /** Seconds a trial slot must stay healthy before it is confirmed (VIGIL_UPDATE_GRACE_SECONDS, default 120). */
  readonly graceSeconds?: number;
}

export const DEFAULT_GRACE_SECONDS = 120;

/** Options from the environment: VIGIL_RAUC, VIGIL_RAUC_ARGS, VIGIL_UPDATE_GRACE_SECONDS (docs/updates.md). */
export function updateOptionsFromEnv(env: NodeJS.ProcessEnv): Pick<UpdateSystemOptions, 'rauc' | 'graceSeconds'> {
  const grace = Number(env.VIGIL_UPDATE_GRACE_SECONDS);
  return {
    rauc: raucOptionsFromEnv(env),
    ...(env.VIGIL_UPDATE_GRACE_SECONDS && Number.isFinite(grace) && grace >= 0 ? { graceSeconds: grace } : {}),
  };
}

export interface SlotReport {
  readonly state: string;
  readonly boot_status: string | null;
  readonly version: string | null;
  readonly installed_at: string | null;
  readonly tries_left: number | null;
  readonly trial: boolean;
}

export interface SlotsReport {
  readonly booted: SlotName;
  readonly primary: SlotName | null;
  readonly A: SlotReport;
  readonly B: SlotReport;
}

export class UpdateSystem {
  readonly dataDir: string;
  readonly version: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly rauc: RaucClient;
  readonly graceMs: number;
  private readonly cmdlinePath: string;
  private readonly bootEnvPath: string;
  private readonly bootIdOf: () => string;

  constructor(options: UpdateSystemOptions) {
    this.dataDir = options.dataDir;
    this.version = options.version;
    this.clock = options.clock;
    this.logger = options.logger;
    this.rauc = new RaucClient(options.rauc);
    this.graceMs = (options.graceSeconds ?? DEFAULT_GRACE_SECONDS) * 1000;
    this.cmdlinePath = options.cmdlinePath ?? DEFAULT_CMDLINE_PATH;
    this.bootEnvPath = options.bootEnvPath ?? DEFAULT_BOOT_ENV_PATH;
    this.bootIdOf = options.bootId ?? currentBootId;
  }

  /** The booted slot from the kernel command line; null on a box (or laptop) without A/B slots. */
  bootedSlot(): SlotName | null {
    return readBootedSlot(this.cmdlinePath);
  }

  bootState(): BootState | null {
    return readBootState(this.bootEnvPath);
  }

  bootId(): string {
    return this.bootIdOf();
  }

  /** Whether the booted slot is on trial: installed and not yet confirmed. */
  onTrial(): boolean {
    const booted = this.bootedSlot();
    return booted !== null && (this.bootState()?.trial[booted] ?? false);
  }

  /** RAUC's view, or null where there is no RAUC to ask (not an A/B box, rauc missing or failing). */
  async raucStatus(): Promise<RaucStatus | null> {
    if (this.bootedSlot() === null) return null;
    try {
      return await this.rauc.status();
    } catch (err) {
      this.logger.warn('rauc status failed', { error: (err as Error).message });
      return null;
    }
  }

  /** The slots as GET /api/system reports them; null when updates are not available on this system. */
  async slotsReport(): Promise<SlotsReport | null> {
    const booted = this.bootedSlot();
    if (booted === null) return null;
    const status = await this.raucStatus();
    if (status === null) return null;
    const boot = this.bootState();
    const slot = (name: SlotName): SlotReport => {
      const rauc = status.slots.find((s) => s.bootname === name);
      return {
        state: rauc?.state ?? 'unknown',
        boot_status: rauc?.bootStatus ?? null,
        // The booted slot runs this build; one never installed by a bundle has no version in RAUC.
        version: rauc?.version ?? (name === booted ? this.version : null),
        installed_at: rauc?.installedAt ?? null,
        tries_left: boot?.triesLeft[name] ?? null,
        trial: boot?.trial[name] ?? false,
      };
    };
    const [a, b] = SLOT_NAMES.map(slot) as [SlotReport, SlotReport];
    return { booted, primary: boot?.order[0] ?? status.primary, A: a, B: b };
  }
}
