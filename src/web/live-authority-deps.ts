/** The live authority's dependencies from the page's own (the same resolver as every request). */
import { principalResolver } from '../api/middleware/auth.js';
import type { Logger } from '../core/logger.js';
import type { LiveAuthorityDeps } from './live-authority.js';
import type { WebDeps } from './web-deps.js';

export function liveAuthorityDeps(deps: WebDeps, logger: Logger): LiveAuthorityDeps {
  return {
    resolve: principalResolver({ tokens: deps.tokens, settings: deps.settings, store: deps.store, logger }),
    verify: (token) => deps.tokens.verifyToken(token),
    settings: deps.settings,
    epochs: deps.store.tokenEpochs,
    revoked: deps.store.revokedTokens,
    clock: deps.clock,
  };
}
