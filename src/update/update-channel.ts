/**
 * The update channel the box polls (settings `updates`, docs/updates.md "The update channel"): every
 * `poll_interval_minutes` it fetches the signed manifest, verifies it against the box's RAUC keyring,
 * checks it (compatible, expiry, replay), decides (channel-decision.ts) and, when it is this box's turn
 * and the gates are open, installs the bundle by RAUC's HTTP streaming and reboots into it. The update
 * monitor then confirms or rolls back as for any install. Every failure only sets `error`, shown on the
 * System view, in GET /api/system and as the `update-channel` component; none touches a slot.
 */
import { describeError } from '../core/errors.js';
import type { ComponentHealth, HealthRegistry } from '../core/health.js';
import type { Service } from '../core/service.js';
import type { UpdatesSettings } from '../settings/schema.js';
import { readPem } from '../settings/pem-check.js';
import { decide } from './channel-decision.js';
import { fetchManifest } from './channel-fetch.js';
import { gateClosed } from './channel-gates.js';
import { installFromChannel } from './channel-install.js';
import { checkManifest, currentWavePercent, waveBucket, type ChannelManifest } from './channel-manifest.js';
import { verifySignedManifest } from './channel-signature.js';
import { type LastInstall, readChannelState, writeChannelState } from './channel-state.js';
import { writeRebootRequest } from './reboot-request.js';
import { readUpdateRecord } from './update-record.js';
import type { UpdateSystem } from './update-system.js';

export const CHANNEL_COMPONENT = 'update-channel';
/** RAUC's keyring on the box (image/overlay/etc/rauc/system.conf); VIGIL_RAUC_KEYRING elsewhere. */
export const DEFAULT_KEYRING = '/etc/rauc/keyring.pem';
/** The unit's RuntimeDirectory (systemd/vigil.service), when systemd does not say it in RUNTIME_DIRECTORY. */
export const DEFAULT_CHANNEL_RUNTIME_DIR = '/run/vigil-channel';
/** A first look soon after the start, then every poll interval. */
const FIRST_CHECK_MS = 30_000;
/** While only the gates (an alarm, an output) hold an install back, look again this soon. */
const GATED_RECHECK_MS = 5 * 60_000;
const OFF_RECHECK_MS = 60_000;

export type ChannelStateName = 'off' | 'idle' | 'checking' | 'installing' | 'waiting' | 'error';

export interface ChannelFacts {
  readonly url: string | null;
  readonly state: ChannelStateName;
  readonly last_check_at: string | null;
  readonly next_check_at: string | null;
  readonly error: { readonly code: string; readonly message: string; readonly at: string } | null;
  readonly manifest: {
    readonly serial: number;
    readonly version: string;
    readonly issued_at: string;
    readonly expires_at: string;
    readonly bundle_url: string;
    readonly wave_percent: number;
  } | null;
  /** This box's place in every rollout (0..100): in the current wave while below its percent. */
  readonly bucket: number | null;
  readonly decision: string | null;
  readonly progress: { readonly percent: number; readonly step: string } | null;
  readonly last_install: LastInstall | null;
}

export interface UpdateChannelDeps {
  readonly system: UpdateSystem;
  readonly settings: () => UpdatesSettings;
  /** The installation's instance id (the store's meta, made on first use). */
  readonly instanceId: () => Promise<string>;
  readonly health: HealthRegistry;
  /** When the newest alarm arrived (ms), null when none is known. */
  readonly lastAlarmAt: () => number | null;
  /** The update monitor's reconcile: journals what a new record owes. */
  readonly reconcile: () => void;
  /** RAUC's keyring: the manifest is signed by the same PKI as the bundles. */
  readonly keyring: string;
  /** Where RAUC's streaming helper reads the CA file from (the unit's RuntimeDirectory). */
  readonly runtimeDir: string;
  /** Minutes since local midnight (tests fix the clock's zone). */
  readonly localMinutes?: (now: number) => number;
  readonly openssl?: string;
  /** The manifest fetch's bound (FETCH_TIMEOUT_MS); tests shorten it. */
  readonly fetchTimeoutMs?: number;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The outputs that still owe the central station events: a backlog, or not delivering. */
export function outputsBehind(components: readonly ComponentHealth[]): string[] {
  return components
    .filter((c) => c.kind === 'output')
    .filter(
      (c) =>
        (typeof c.metrics.backlog === 'number' && c.metrics.backlog > 0) ||
        (c.state !== 'ok' && c.state !== 'degraded'),
    )
    .map((c) => c.name);
}

export class UpdateChannel implements Service {
  readonly name = CHANNEL_COMPONENT;
  private readonly deps: UpdateChannelDeps;
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private checking: Promise<void> | null = null;
  private state: ChannelStateName = 'off';
  private lastCheckAt: number | null = null;
  private nextCheckAt: number | null = null;
  private error: ChannelFacts['error'] = null;
  private manifest: ChannelManifest | null = null;
  private bucket: number | null = null;
  private decision: string | null = null;
  private progress: ChannelFacts['progress'] = null;
  private lastInstall: ChannelFacts['last_install'] = null;

  constructor(deps: UpdateChannelDeps) {
    this.deps = deps;
  }

  async start(): Promise<void> {
    if (this.deps.system.bootedSlot() === null) return; // no A/B slots: nothing to update
    this.stopped = false;
    // The install before the reboot it asked for is still this channel's last one.
    this.lastInstall = readChannelState(this.deps.system.dataDir).last_install;
    this.schedule(FIRST_CHECK_MS);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.deps.health.remove(CHANNEL_COMPONENT);
  }

  /** POST /api/system/update/check: a check now (an install it starts runs on after the answer). */
  async checkNow(): Promise<ChannelFacts> {
    if (this.stopped) return this.facts();
    if (!this.checking) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.run();
    }
    // Answer after the manifest is judged, not after a streamed install of many minutes.
    const until = this.deps.system.clock.now() + 60_000;
    while (this.checking && this.state === 'checking' && this.deps.system.clock.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 100));
    return this.facts();
  }

  facts(): ChannelFacts {
    const url = this.deps.settings().channel_url;
    const m = this.manifest;
    const now = this.deps.system.clock.now();
    return {
      url: url === '' ? null : url,
      state: this.stopped ? 'off' : this.state,
      last_check_at: iso(this.lastCheckAt),
      next_check_at: iso(this.nextCheckAt),
      error: this.error,
      manifest: m && {
        serial: m.serial,
        version: m.version,
        issued_at: m.issued_at,
        expires_at: m.expires_at,
        bundle_url: m.bundle_url,
        wave_percent: currentWavePercent(m.waves, now),
      },
      bucket: this.bucket === null ? null : Math.round(this.bucket * 10) / 10,
      decision: this.decision,
      progress: this.progress,
      last_install: this.lastInstall,
    };
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.nextCheckAt = this.deps.system.clock.now() + ms;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.run();
    }, ms);
    this.timer.unref();
  }

  private run(): void {
    this.checking = this.check()
      .catch((err: unknown) => this.failed('CHECK_FAILED', describeError(err)))
      .then((next) => this.schedule(next ?? this.intervalMs()))
      .finally(() => {
        this.checking = null;
      });
  }

  private intervalMs(): number {
    return this.deps.settings().poll_interval_minutes * 60_000;
  }

  private failed(code: string, message: string): number {
    this.state = 'error';
    this.error = { code, message, at: new Date(this.deps.system.clock.now()).toISOString() };
    this.deps.system.logger.warn('update channel check failed', { code, error: message });
    this.report();
    return this.intervalMs();
  }

  /** One check; returns when the next one is due (ms). */
  private async check(): Promise<number> {
    const { system } = this.deps;
    const settings = this.deps.settings();
    if (settings.channel_url === '') {
      this.state = 'off';
      this.error = null;
      this.decision = null;
      this.report();
      return OFF_RECHECK_MS;
    }
    this.state = 'checking';
    this.lastCheckAt = system.clock.now();
    this.report();
    let ca: string | undefined;
    if (settings.ca_file !== '') {
      const read = await readPem(settings.ca_file);
      if (!read.ok) return this.failed('CA_FILE', `updates.ca_file ${read.reason}`);
      ca = read.text;
    }
    const fetched = await fetchManifest(settings.channel_url, {
      ca,
      ...(this.deps.fetchTimeoutMs ? { timeoutMs: this.deps.fetchTimeoutMs } : {}),
    });
    if (!fetched.ok) return this.failed(fetched.code, fetched.message);
    const signed = await verifySignedManifest(fetched.body, this.deps.keyring, this.deps.openssl);
    if (!signed.ok) return this.failed(signed.code, signed.message);
    const stored = readChannelState(system.dataDir);
    const checked = checkManifest(signed.content, settings.channel_url, system.clock.now(), stored.accepted);
    if (!checked.ok) return this.failed(checked.code, checked.message);
    const manifest = checked.manifest;
    if (stored.accepted?.serial !== manifest.serial)
      writeChannelState(system.dataDir, { ...stored, accepted: { serial: manifest.serial, digest: manifest.digest } });
    this.manifest = manifest;
    this.error = null;
    return this.act(manifest, settings);
  }

  private async act(manifest: ChannelManifest, settings: UpdatesSettings): Promise<number> {
    const { system } = this.deps;
    const now = system.clock.now();
    const booted = system.bootedSlot();
    if (booted === null) return this.intervalMs();
    this.bucket = waveBucket(await this.deps.instanceId());
    const localMinutes = this.deps.localMinutes?.(now) ?? new Date(now).getHours() * 60 + new Date(now).getMinutes();
    const gate = gateClosed({
      now,
      localMinutes,
      window: { start: settings.window_start, end: settings.window_end },
      outputsBehind: outputsBehind(this.deps.health.snapshot()),
      lastAlarmAt: this.deps.lastAlarmAt(),
    });
    const decision = decide({
      offered: manifest.version,
      running: system.version,
      record: readUpdateRecord(system.dataDir).install,
      booted,
      bucket: this.bucket,
      wavePercent: currentWavePercent(manifest.waves, now),
      autoInstall: settings.auto_install,
      autoReboot: settings.auto_reboot,
      onTrial: system.onTrial(),
      gate,
    });
    this.decision = decision.text;
    this.state = decision.gated ? 'waiting' : 'idle';
    this.report();
    if (decision.action === 'reboot') {
      writeRebootRequest(system.dataDir, `update ${manifest.version} from the channel`, now);
      system.logger.warn('rebooting into the update from the channel', { version: manifest.version });
    }
    if (decision.action === 'install') return this.install(manifest, settings);
    return decision.gated ? Math.min(GATED_RECHECK_MS, this.intervalMs()) : this.intervalMs();
  }

  private async install(manifest: ChannelManifest, settings: UpdatesSettings): Promise<number> {
    const { system } = this.deps;
    this.state = 'installing';
    this.progress = { percent: 0, step: 'starting' };
    this.report();
    const result = await installFromChannel(system, {
      url: manifest.bundle_url,
      version: manifest.version,
      caFile: settings.ca_file,
      runtimeDir: this.deps.runtimeDir,
      onProgress: (percent, step) => {
        this.progress = { percent, step };
      },
    });
    this.progress = null;
    const at = new Date(system.clock.now()).toISOString();
    const stored = readChannelState(system.dataDir);
    if (!result.ok) {
      const failures = stored.attempts?.version === manifest.version ? stored.attempts.failures + 1 : 1;
      this.lastInstall = { version: manifest.version, at, seconds: 0, result: `${result.code}: ${result.message}` };
      writeChannelState(system.dataDir, {
        ...stored,
        attempts: { version: manifest.version, failures, last_error: result.message, last_at: at },
        last_install: this.lastInstall,
      });
      this.decision = `version ${manifest.version} not installed (attempt ${failures}); the next check tries again`;
      return this.failed(result.code, result.message);
    }
    this.lastInstall = {
      version: result.record.to_version,
      at,
      seconds: Math.round(result.seconds),
      result: 'installed',
    };
    writeChannelState(system.dataDir, { ...stored, attempts: null, last_install: this.lastInstall });
    this.deps.reconcile();
    // Straight on to the reboot when it may: the same decision, now with the record in place.
    return this.act(manifest, this.deps.settings());
  }

  private report(): void {
    if (this.stopped) return;
    const f = this.facts();
    const detail = f.error
      ? `${f.error.code}: ${f.error.message}`
      : (f.decision ?? (f.url ? 'checking' : 'no update channel configured'));
    this.deps.health.report(CHANNEL_COMPONENT, CHANNEL_COMPONENT, f.state === 'error' ? 'degraded' : 'ok', detail, {
      state: f.state,
      ...(f.manifest ? { offered: f.manifest.version, serial: f.manifest.serial } : {}),
    });
  }
}
