/**
 * The gateway's lifecycle and configuration events (docs/internal-events.md §Gateway events):
 * `gateway_started` when the gateway has started its services (this service starts after them), `gateway_stopping` when it begins
 * to stop (journaled before the ingest and the outputs stop, so it can still be forwarded),
 * `settings_changed` after every saved settings update, naming the sections that changed.
 * This service lives for the whole process, outside the restartable receivers/outputs group:
 * a restart of the services is not a gateway start.
 */
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import type { RaiseInternalEvent } from './recorder.js';

/** The slice of SettingsService this needs. */
export interface SettingsChanges {
  onChange(listener: (next: object, previous: object) => void): () => void;
}

export interface GatewayEventsDeps {
  readonly raise: RaiseInternalEvent;
  readonly settings: SettingsChanges;
  readonly logger: Logger;
  /** Resolves when everything raised so far is journaled or held (InternalEventRecorder.idle). */
  readonly idle: () => Promise<void>;
  readonly version: string;
  /** Told beside the version (how the previous run ended, a restored backup); null or absent: nothing. */
  readonly startNotes?: (() => string | null) | undefined;
}

/** Top-level sections whose content differs, in key order. */
export function changedSections(next: object, previous: object): string[] {
  const keys = new Set([...Object.keys(previous), ...Object.keys(next)]);
  const a = next as Record<string, unknown>;
  const b = previous as Record<string, unknown>;
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();
}

export class GatewayEvents implements Service {
  readonly name = 'internal-events:gateway';
  private readonly deps: GatewayEventsDeps;
  private unsubscribe: (() => void) | null = null;

  constructor(deps: GatewayEventsDeps) {
    this.deps = deps;
  }

  async start(): Promise<void> {
    if (this.unsubscribe) return;
    this.unsubscribe = this.deps.settings.onChange((next, previous) => {
      const sections = changedSections(next, previous);
      if (sections.length === 0) return;
      // The section names only: values may hold secrets and events leave the gateway.
      void this.deps.raise('settings_changed', { detail: sections.join(',') });
    });
    // Started after the ingest, outputs and receivers: the event can be journaled and forwarded.
    // The journal in RAM is gone after a reboot: the previous run's end is told here (docs/watchdog.md).
    const notes = this.deps.startNotes?.() ?? null;
    const detail = `version ${this.deps.version}${notes ? `; ${notes}` : ''}`;
    await this.deps.raise('gateway_started', { detail });
  }

  async stop(): Promise<void> {
    if (!this.unsubscribe) return;
    this.unsubscribe();
    this.unsubscribe = null;
    await this.deps.raise('gateway_stopping');
    await this.deps.idle();
  }
}
