/** The live authority's dependencies from the API's own (the same resolver as every request). */
import { principalResolver } from '../api/middleware/auth.js';
import type { ApiDeps } from '../api/deps.js';
import type { Logger } from '../core/logger.js';
import type { LiveAuthorityDeps } from './live-authority.js';

export function liveAuthorityDeps(
  deps: Pick<ApiDeps, 'tokens' | 'settings' | 'store' | 'clock'>,
  logger: Logger,
): LiveAuthorityDeps {
  return {
    resolve: principalResolver({ tokens: deps.tokens, settings: deps.settings, store: deps.store, logger }),
    verify: (token) => deps.tokens.verifyToken(token),
    settings: deps.settings,
    epochs: deps.store.tokenEpochs,
    revoked: deps.store.revokedTokens,
    clock: deps.clock,
  };
}
