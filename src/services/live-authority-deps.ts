/** The live authority's dependencies from an edge's own (the same resolver as every request). */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { LiveAuthorityDeps } from './live-authority.js';
import { principalResolver, type PrincipalResolverOptions } from './principal-resolver.js';

export function liveAuthorityDeps(
  deps: Omit<PrincipalResolverOptions, 'logger'> & { readonly clock: Clock },
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
