/**
 * Logging in (POST /api/login and the page's /login form): the one password check, before any
 * principal exists, so both edges get the same accounts, the same throttle, the same token.
 * Wrong credentials cost the same scrypt whether or not the login exists (verifyPassword's dummy
 * hash); repeated failures from one address, and for one login name from any addresses, are
 * throttled (LoginThrottle, AccountThrottle).
 */
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { LoginThrottle } from '../auth/login-throttle.js';
import { verifyPassword } from '../auth/passwords.js';
import { userSubject, type TokenService } from '../auth/tokens.js';
import type { ApiSettingsPort, ApiStorePort, ApiUser } from './ports.js';
import { readGrants } from './principal-resolver.js';

export type LoginOutcome =
  | { readonly kind: 'throttled'; readonly retryAfterS: number }
  | { readonly kind: 'invalid' }
  | { readonly kind: 'refused' }
  | { readonly kind: 'ok'; readonly user: ApiUser; readonly token: string; readonly expiresAt: Date };

export interface LoginDeps {
  readonly throttle: LoginThrottle;
  readonly settings: ApiSettingsPort;
  readonly store: ApiStorePort;
  readonly tokens: TokenService;
  readonly clock: Clock;
}

export interface Credentials {
  readonly login: string;
  readonly password: string;
}

/**
 * The throttle is consulted first (a throttled caller's body is never read), then `read` gives the
 * credentials (null: malformed, no password checked). Throws only on a server-side failure (the
 * caller answers it as E_3); the throttle is always told the outcome.
 */
export async function checkLogin(
  deps: LoginDeps,
  logger: Logger,
  address: string,
  read: () => Promise<Credentials | null>,
): Promise<LoginOutcome> {
  const decision = deps.throttle.begin(address);
  if (!decision.allowed) return { kind: 'throttled', retryAfterS: decision.retryAfterS };
  let outcome: 'success' | 'failure' | null = null;
  let account: string | undefined;
  try {
    const credentials = await read();
    if (!credentials) return { kind: 'invalid' };
    const { login: name, password } = credentials;
    // Per-account backoff against distributed guessing (docs/security.md "Logins").
    const forAccount = deps.throttle.beginAccount(name, address);
    if (!forAccount.allowed) return { kind: 'throttled', retryAfterS: forAccount.retryAfterS };
    account = name;
    const user = deps.settings.current().users.find((u) => u.login === name);
    // Always one scrypt: an unknown login verifies against a dummy hash (same time either way).
    const good = await verifyPassword(password, user?.password_hash);
    if (!good || !user) {
      outcome = 'failure';
      logger.warn('login failed', { address, login: name.slice(0, 64) });
      return { kind: 'refused' };
    }
    outcome = 'success';
    const scopes = [...new Set([...user.scopes, ...readGrants(deps.store, user.id, logger)])];
    const issued = await deps.tokens.issueToken({
      sub: userSubject(user.id),
      scopes,
      epoch: deps.store.tokenEpochs.get(user.id),
      minutes: user.token_time,
      now: deps.clock.now(),
    });
    logger.info('login', { address, user_id: user.id });
    return { kind: 'ok', user, token: issued.token, expiresAt: issued.expiresAt };
  } catch (err) {
    logger.error('login error', { address, error: describeError(err) });
    throw err;
  } finally {
    deps.throttle.finish(address, outcome, account);
  }
}
