/**
 * Restarting the receivers and outputs (GET /api/restart-services and the page's /restart): scope
 * `restart_services`, then the services group's restart, which serialises concurrent calls itself
 * (src/core/service-group.ts). A failed restart is logged and thrown (the edges answer it as E_3).
 */
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { FORBIDDEN, hasScope, type Forbidden, type Principal } from './principal.js';

export const RESTART_SCOPE = 'restart_services';

export interface RestartDeps {
  readonly services: { restart(): Promise<void> };
  readonly logger: Logger;
}

export type RestartOutcome = Forbidden | { readonly kind: 'ok' };

export function mayRestart(principal: Principal): boolean {
  return hasScope(principal, RESTART_SCOPE);
}

export async function restartServices(deps: RestartDeps, principal: Principal): Promise<RestartOutcome> {
  if (!mayRestart(principal)) return FORBIDDEN;
  const by = principal.subject;
  deps.logger.info('restart requested', { by });
  try {
    await deps.services.restart();
  } catch (err) {
    deps.logger.error('restart failed', { by, error: describeError(err) });
    throw err;
  }
  return { kind: 'ok' };
}
