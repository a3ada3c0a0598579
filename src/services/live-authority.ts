/**
 * The authority behind a long-lived response (the page's live tail GET /events/live, the API's
 * GET /api/events/stream): the principal is
 * resolved once when the stream opens, so without a re-check a deleted user, a changed password, a
 * narrowed `visible_receivers`, a removed scope, a rotated `api_jwt_secret`, an expired or logged-out
 * token would keep receiving alarms (docs/security.md "Open streams after revocation").
 *
 * The check runs before every flush and on a timer of RECHECK_MS, and is cheap when nothing
 * changed: the token's expiry against the clock, the user's token epoch and the revocation set (both
 * in memory), and the identity of the settings document (SettingsService hands out a new frozen
 * object on every commit: its identity is the settings revision). Only when the settings changed is
 * the token resolved again, by the same resolver every request uses; the stream ends unless the
 * answer still holds the scope and sees exactly the receivers it saw.
 */
import type { Clock } from '../core/clock.js';
import type { Principal } from './principal.js';
import type { TokenClaims } from '../auth/tokens.js';

/** How often an idle stream re-checks (one flush interval): the most a revoked stream lives on. */
export const RECHECK_MS = 1000;

export interface LiveAuthorityDeps {
  readonly resolve: (token: string | null) => Promise<Principal | null>;
  readonly verify: (token: string) => Promise<TokenClaims>;
  readonly settings: { current(): object };
  readonly epochs: { get(userId: number): number };
  readonly revoked: { has(jti: string): boolean };
  readonly clock: Clock;
}

function sameReceivers(a: readonly number[] | null, b: readonly number[] | null): boolean {
  if (a === null || b === null) return a === b;
  const x = [...a].sort((m, n) => m - n);
  const y = [...b].sort((m, n) => m - n);
  return x.length === y.length && x.every((id, i) => id === y[i]);
}

export class LiveAuthority {
  private settingsSeen: object;
  private lost = false;
  private timer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly deps: LiveAuthorityDeps,
    private readonly token: string,
    private readonly claims: TokenClaims,
    private readonly principal: Principal,
    private readonly scope: string,
  ) {
    this.settingsSeen = deps.settings.current();
  }

  /** Null when the token no longer verifies (the caller answers as for no session). */
  static async open(
    deps: LiveAuthorityDeps,
    token: string,
    principal: Principal,
    scope: string,
  ): Promise<LiveAuthority | null> {
    try {
      return new LiveAuthority(deps, token, await deps.verify(token), principal, scope);
    } catch {
      return null;
    }
  }

  /** True while the stream may go on; once false, always false. */
  async holds(): Promise<boolean> {
    if (this.lost) return false;
    this.lost = !(await this.check());
    return !this.lost;
  }

  private async check(): Promise<boolean> {
    const { clock, epochs, revoked, settings } = this.deps;
    if (clock.now() >= this.claims.exp * 1000) return false;
    if (this.principal.userId !== null && epochs.get(this.principal.userId) !== this.claims.epoch) return false;
    if (this.claims.jti !== null && revoked.has(this.claims.jti)) return false;
    const current = settings.current();
    if (current === this.settingsSeen) return true;
    const now = await this.deps.resolve(this.token);
    if (!now?.scopes.has(this.scope) || !sameReceivers(now.visibleReceivers, this.principal.visibleReceivers))
      return false;
    this.settingsSeen = current;
    return true;
  }

  /** Resolves once the authority is gone (checked every RECHECK_MS); stop() ends the timer. */
  ended(intervalMs = RECHECK_MS): Promise<void> {
    return new Promise((resolve) => {
      const tick = (): void => {
        void this.holds().then((ok) => {
          if (!ok) resolve();
          else if (this.timer !== null) this.timer = setTimeout(tick, intervalMs);
        });
      };
      this.timer = setTimeout(tick, intervalMs);
    });
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
