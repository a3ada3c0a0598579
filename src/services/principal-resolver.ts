/**
 * The caller a token stands for: one rule for the API's bearer middleware (src/api/middleware/auth.ts),
 * the page's session (src/web/web-auth.ts) and the event stream's re-checks (live-authority.ts).
 *
 * A user token is checked against the CURRENT user record on every request (docs/api.md
 * "Tokens"): a deleted user, or a token issued before the user's last password change or before
 * the id was deleted and re-created (token epoch), is refused, and the effective scopes are the
 * token's scopes ∩ (the user's current scopes ∪ the user's current grants), so a scope removed
 * since issue is refused at once.
 */
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { INSTALLER_SUBJECT, parseSubject, type TokenService } from '../auth/tokens.js';
import type { ApiSettingsPort, ApiStorePort } from './ports.js';
import type { Principal } from './principal.js';

export interface PrincipalResolverOptions {
  readonly tokens: TokenService;
  readonly settings: ApiSettingsPort;
  readonly store: ApiStorePort;
  readonly logger: Logger;
}

/** Grants live in the store; when it cannot be read the caller keeps only the user-record scopes. */
export function readGrants(store: ApiStorePort, userId: number, logger: Logger): string[] {
  try {
    return store.grants.get(userId);
  } catch (err) {
    logger.warn('grants unreadable, using none', { user_id: userId, error: describeError(err) });
    return [];
  }
}

/** The caller a token stands for, or null when the token is not acceptable. */
export function principalResolver(
  options: PrincipalResolverOptions,
): (token: string | null) => Promise<Principal | null> {
  if (!options?.tokens || !options.settings || !options.store || !options.logger) {
    throw new Error('principalResolver() requires tokens, settings, store and logger');
  }
  const { tokens, settings, store, logger } = options;

  return async function resolvePrincipal(token: string | null): Promise<Principal | null> {
    if (!token) return null;
    let claims;
    try {
      claims = await tokens.verifyToken(token);
    } catch (err) {
      logger.debug('token refused', { reason: describeError(err) });
      return null;
    }
    const subject = parseSubject(claims.sub);
    if (!subject) return null;
    // Ended by logout before its expiry (docs/security.md "Logout").
    if (claims.jti !== null && store.revokedTokens.has(claims.jti)) return null;
    if (subject.kind === 'installer') {
      // Made by `vigil token` from the secret itself: exactly the scopes it was issued with.
      return { subject: INSTALLER_SUBJECT, userId: null, scopes: new Set(claims.scopes), visibleReceivers: null };
    }
    const user = settings.current().users.find((u) => u.id === subject.userId);
    if (!user) return null;
    if (claims.epoch !== store.tokenEpochs.get(user.id)) return null;
    const allowed = new Set([...user.scopes, ...readGrants(store, user.id, logger)]);
    return {
      subject: claims.sub,
      userId: user.id,
      scopes: new Set(claims.scopes.filter((s) => allowed.has(s))),
      visibleReceivers: user.visible_receivers.all ? null : [...user.visible_receivers.custom],
    };
  };
}
