/**
 * The one logout behind POST /logout (the page) and POST /api/logout: the token ends now, not at
 * its expiry (docs/security.md "Logout"). The caller has already been authenticated with this
 * token; its id goes to the revocation set until the token's own expiry, in the file (a restart
 * keeps it) and in memory (every check reads that). The live tail of the same session ends within
 * its re-check interval (src/services/live-authority.ts).
 */
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { TokenService } from '../auth/tokens.js';
import type { ApiStorePort } from './ports.js';

export type LogoutOutcome =
  /** Revoked in the file and in memory. */
  | 'revoked'
  /** Revoked in memory only (the store refused the write): ends with this run. */
  | 'revoked-until-restart'
  /** An installer token made before token ids existed: only a new api_jwt_secret ends it. */
  | 'no-id';

export async function logout(
  deps: { readonly tokens: TokenService; readonly store: ApiStorePort },
  logger: Logger,
  token: string,
): Promise<LogoutOutcome> {
  const claims = await deps.tokens.verifyToken(token);
  if (claims.jti === null) return 'no-id';
  const userId = /^user:(\d+)$/.exec(claims.sub)?.[1];
  try {
    await deps.store.revokeToken(claims.jti, userId === undefined ? null : Number(userId), claims.exp * 1000);
    logger.info('logout', { sub: claims.sub });
    return 'revoked';
  } catch (err) {
    logger.error('logout not recorded in the store; the token stays revoked until restart', {
      sub: claims.sub,
      error: describeError(err),
    });
    return 'revoked-until-restart';
  }
}
