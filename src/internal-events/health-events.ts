/**
 * Turns component health changes into internal events (docs/internal-events.md §Health):
 * receivers (kind 'receiver'), outputs (kind 'output'), the store (kind 'store') and its free
 * space (kind 'storage') report to the one HealthRegistry; this bridge journals their failures
 * and recoveries.
 *
 * Rules:
 * - entering `failed` raises the failure type once; repeated `failed` reports (new detail) do not;
 * - `ok` after a raised failure raises the restore type;
 * - entering `degraded` raises the kind's trouble type once where it has one (receivers: a COM
 *   line gone silent, docs/serial.md; storage: low on space, docs/store.md §Free space); `failed`
 *   after it still raises the failure; `ok` restores;
 * - otherwise `degraded`, `starting` and `stopped` change nothing: a restart of the services stops and
 *   starts every receiver, which is neither a failure nor a recovery, and a component still
 *   failed after a restart keeps its open failure until it reports `ok`.
 */
import type { ComponentHealth, HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import type { InternalEventType } from '../settings/schema.js';
import type { RaiseInternalEvent } from './recorder.js';

interface KindEvents {
  readonly failed: InternalEventType;
  readonly restored: InternalEventType;
  /** Raised on entering `degraded` where a kind has it (a COM line gone silent); `ok` after it raises `restored`. */
  readonly degraded?: InternalEventType;
}

export const HEALTH_EVENT_TYPES: Readonly<Record<string, KindEvents>> = {
  receiver: { failed: 'receiver_failed', restored: 'receiver_restored', degraded: 'receiver_trouble' },
  output: { failed: 'output_failed', restored: 'output_restored' },
  store: { failed: 'store_trouble', restored: 'store_restored' },
  // The journal's file system running low on space (src/system/storage-space.ts): a store trouble ahead of a failure.
  storage: { failed: 'store_trouble', restored: 'store_restored', degraded: 'store_trouble' },
};

export interface HealthEventBridgeDeps {
  readonly health: HealthRegistry;
  readonly raise: RaiseInternalEvent;
  readonly logger: Logger;
  /** Called after a store_restored was raised: the recorder retries what it holds. */
  readonly onStoreRestored?: () => void;
}

export class HealthEventBridge implements Service {
  readonly name = 'internal-events:health';
  private readonly deps: HealthEventBridgeDeps;
  /** Components with an open (raised, not yet restored) failure or trouble, and which it is. */
  private readonly open = new Map<string, 'failed' | 'degraded'>();
  private unsubscribe: (() => void) | null = null;

  constructor(deps: HealthEventBridgeDeps) {
    this.deps = deps;
  }

  async start(): Promise<void> {
    if (this.unsubscribe) return;
    this.unsubscribe = this.deps.health.onChange((component) => this.observe(component));
    // A component that failed before we subscribed still gets its event.
    for (const component of this.deps.health.snapshot()) this.observe(component);
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Names of components whose failure is open (for tests and /api/status figures). */
  openFailures(): string[] {
    return [...this.open.keys()];
  }

  private observe(component: ComponentHealth): void {
    const types = HEALTH_EVENT_TYPES[component.kind];
    if (!types) return;
    const open = this.open.get(component.name);
    const detail = component.detail ? `${component.name}: ${component.detail}` : component.name;
    if (component.state === 'failed' && open !== 'failed') {
      this.open.set(component.name, 'failed');
      void this.deps.raise(types.failed, { detail });
    } else if (component.state === 'degraded' && types.degraded && open === undefined) {
      this.open.set(component.name, 'degraded');
      void this.deps.raise(types.degraded, { detail });
    } else if (component.state === 'ok' && this.open.has(component.name)) {
      this.open.delete(component.name);
      void this.deps.raise(types.restored, { detail: component.name });
      if (component.kind === 'store') this.deps.onStoreRestored?.();
    }
  }
}
