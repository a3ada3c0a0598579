/**
 * Owns the live settings: loads them at start, validates and saves updates one at a time, and
 * tells listeners what changed. The object handed out by current() is deeply frozen, so no
 * consumer can change shared settings behind the service's back.
 */
import { VigilError, describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import type { ValidationEnv } from './environment.js';
import { toPublicView, type PublicSettings } from './public-view.js';
import { defaultSettings, type Settings } from './schema.js';
import { validateSettingsUpdate, validateStoredSettings, type ValidationResult } from './validate.js';

/**
 * The store's settings (src/store Store fits): load() reads on the caller's connection; the save is a
 * command to the store's one writer (docs/store.md §One writer) that writes everything in ONE SQLite
 * transaction, awaited.
 */
export interface SettingsStore {
  readonly settings: {
    /** The stored settings, or null when nothing was stored yet. Parsed here with the schema. */
    load(): unknown;
  };
  readonly write: { readonly settings: { save(settings: Settings): Promise<unknown> } };
}

export interface SettingsServiceDeps {
  store: SettingsStore;
  env: ValidationEnv;
  logger: Logger;
}

/** May return a promise; a rejection is logged like a throw. */
export type SettingsListener = (next: Settings, previous: Settings) => unknown;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export class SettingsService implements Service {
  readonly name = 'settings';
  private readonly deps: SettingsServiceDeps;
  private settings: Settings | null = null;
  private readonly listeners = new Set<SettingsListener>();
  /** Tail of the update queue: each update starts when the previous one has finished. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(deps: SettingsServiceDeps) {
    this.deps = deps;
  }

  /** Loads the stored settings, or the defaults when nothing is stored (nothing is saved then). */
  async start(): Promise<void> {
    const raw = this.deps.store.settings.load();
    if (raw === null || raw === undefined) {
      this.settings = deepFreeze(defaultSettings());
      this.deps.logger.info('no stored settings, using defaults');
      return;
    }
    const result = validateStoredSettings(raw);
    if (!result.ok) throw new VigilError('INVALID_SETTINGS', 'stored settings are invalid', result.errors);
    this.settings = deepFreeze(result.settings);
  }

  async stop(): Promise<void> {
    // Nothing to release: the repository belongs to the store.
  }

  current(): Settings {
    if (this.settings === null) throw new VigilError('INTERNAL', 'settings service used before start()');
    return this.settings;
  }

  publicView(): PublicSettings {
    return toPublicView(this.current());
  }

  /**
   * Validates the patch against the current settings and saves the result. Invalid -> `{ok:false,
   * errors}` and nothing changes; a failed save -> VigilError('STORE_FAILURE') and nothing changes.
   */
  update(patch: unknown): Promise<ValidationResult> {
    return this.enqueue(async () => {
      const previous = this.current();
      const result = await validateSettingsUpdate(previous, patch, this.deps.env);
      if (!result.ok) {
        this.deps.logger.info('settings update rejected', { errors: result.errors.length });
        return result;
      }
      const sections = Object.keys(patch as object).join(',');
      await this.commit(result.next, previous, sections);
      return { ok: true, next: this.current() };
    });
  }

  /**
   * For the first-start code: replaces the settings whole (it fills the JWT secret, key paths and
   * the first user). The schema and the cross-field rules apply; outside checks do not.
   */
  replaceForInit(next: Settings): Promise<Settings> {
    return this.enqueue(async () => {
      const result = validateStoredSettings(next, { maxUsers: this.deps.env.maxUsers });
      if (!result.ok) throw new VigilError('INVALID_SETTINGS', 'initial settings are invalid', result.errors);
      await this.commit(result.settings, this.current(), 'init');
      return this.current();
    });
  }

  /** Listeners run after the save, in registration order; a failing one is logged and skipped. */
  onChange(listener: SettingsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task, task);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async commit(next: Settings, previous: Settings, sections: string): Promise<void> {
    try {
      await this.deps.store.write.settings.save(next);
    } catch (err) {
      this.deps.logger.error('settings save failed', { error: describeError(err) });
      throw new VigilError('STORE_FAILURE', 'settings could not be saved', [], { cause: err });
    }
    this.settings = deepFreeze(next);
    this.deps.logger.info('settings changed', { sections });
    for (const listener of this.listeners) {
      try {
        const pending = listener(this.settings, previous);
        if (pending instanceof Promise) {
          pending.catch((err: unknown) =>
            this.deps.logger.error('settings listener failed', { error: describeError(err) }),
          );
        }
      } catch (err) {
        this.deps.logger.error('settings listener failed', { error: describeError(err) });
      }
    }
  }
}
