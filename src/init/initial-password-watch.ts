/**
 * `data/initial-admin-password` (first-start.ts) is a password in clear on the SD card; it is
 * worth keeping only while it still opens the first account. This service removes it
 * (docs/security.md "Initial password file"):
 *   - at start, when the file no longer matches the first account (the password was changed while
 *     the gateway was down, the account was deleted, or first boot provisioned the account from
 *     vigil-setup.txt and the file is a stale leftover of an interrupted first start);
 *   - on every committed settings change that changes the first account's password hash or
 *     removes the account: PUT /api/settings and the page's settings forms both commit through
 *     SettingsService, so both reach this listener.
 * The file is removed here, never rewritten: nothing else in the gateway reads it.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { verifyPassword } from '../auth/passwords.js';
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import { PASSWORD_FILE } from './first-start.js';

/** The first account always has id 1 (first-start.ts). */
const FIRST_ACCOUNT_ID = 1;

interface UserHashes {
  readonly users: ReadonlyArray<{ readonly id: number; readonly password_hash: string }>;
}

export interface InitialPasswordWatchDeps<S extends UserHashes> {
  readonly dataDir: string;
  readonly settings: { current(): S; onChange(listener: (next: S, previous: S) => unknown): () => void };
  readonly logger: Logger;
}

function firstAccountHash(settings: UserHashes): string | null {
  return settings.users.find((u) => u.id === FIRST_ACCOUNT_ID)?.password_hash ?? null;
}

export class InitialPasswordWatch<S extends UserHashes> implements Service {
  readonly name = 'initial-password-watch';
  private readonly deps: InitialPasswordWatchDeps<S>;
  private unsubscribe: (() => void) | null = null;

  constructor(deps: InitialPasswordWatchDeps<S>) {
    this.deps = deps;
  }

  get path(): string {
    return join(this.deps.dataDir, PASSWORD_FILE);
  }

  async start(): Promise<void> {
    this.unsubscribe = this.deps.settings.onChange((next, previous) => {
      const before = firstAccountHash(previous);
      const after = firstAccountHash(next);
      if (after === null || after !== before)
        this.remove(after === null ? 'first account deleted' : 'first account password changed');
    });
    await this.removeIfStale();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Keeps the file only when its password still verifies against the first account's hash. */
  private async removeIfStale(): Promise<void> {
    if (!existsSync(this.path)) return;
    let password: string | undefined;
    try {
      password = readFileSync(this.path, 'utf8').split('\n')[1];
    } catch (err) {
      this.deps.logger.warn('initial password file unreadable', { path: this.path, error: describeError(err) });
    }
    const hash = firstAccountHash(this.deps.settings.current());
    if (password && hash !== null && (await verifyPassword(password, hash))) return;
    this.remove('no longer the first account password');
  }

  private remove(reason: string): void {
    if (!existsSync(this.path)) return;
    try {
      rmSync(this.path, { force: true });
      this.deps.logger.info('initial password file removed', { path: this.path, reason });
    } catch (err) {
      this.deps.logger.error('initial password file could not be removed', {
        path: this.path,
        error: describeError(err),
      });
    }
  }
}
