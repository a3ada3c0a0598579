/**
 * Reading and saving the settings (GET/PUT /api/settings and the page's /settings/:section), on
 * top of SettingsService (src/settings/settings-service.ts), which owns validation, the queue of
 * updates and the atomic save. What this file adds is who may call it: the scope `settings`,
 * which the contract grants every section with, `users` included, so `settings` is the
 * administrator scope and is not narrowed by visible receivers (docs/security.md "Scopes").
 *   readSettings: scope -> the public view (no hashes, no JWT secret, other secrets masked)
 *   saveSettings: scope -> the patch is a JSON object -> SettingsService.update -> ok | invalid
 * A failed save throws VigilError('STORE_FAILURE') after logging it; nothing is changed then.
 */
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { ApiSettingsPort } from './ports.js';
import { FORBIDDEN, hasScope, type Forbidden, type Principal } from './principal.js';

export const SETTINGS_SCOPE = 'settings';
/** The validation line of a body that is not a JSON object (the plain-text style of the other lines). */
export const NOT_AN_OBJECT = 'body: must be a JSON object';

export interface SettingsAccessDeps {
  readonly settings: Pick<ApiSettingsPort, 'update' | 'publicView'>;
  readonly logger: Logger;
}

export type ReadSettingsOutcome = Forbidden | { readonly kind: 'ok'; readonly view: Record<string, unknown> };

export type SaveSettingsOutcome =
  | Forbidden
  | { readonly kind: 'invalid'; readonly errors: readonly string[] }
  | { readonly kind: 'ok'; readonly sections: readonly string[] };

export function mayManageSettings(principal: Principal): boolean {
  return hasScope(principal, SETTINGS_SCOPE);
}

export function readSettings(deps: Pick<SettingsAccessDeps, 'settings'>, principal: Principal): ReadSettingsOutcome {
  if (!mayManageSettings(principal)) return FORBIDDEN;
  return { kind: 'ok', view: deps.settings.publicView() as Record<string, unknown> };
}

export async function saveSettings(
  deps: SettingsAccessDeps,
  principal: Principal,
  patch: unknown,
): Promise<SaveSettingsOutcome> {
  if (!mayManageSettings(principal)) return FORBIDDEN;
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
    return { kind: 'invalid', errors: [NOT_AN_OBJECT] };
  const sections = Object.keys(patch);
  let result;
  try {
    result = await deps.settings.update(patch);
  } catch (err) {
    deps.logger.error('settings update failed', { by: principal.subject, error: describeError(err) });
    throw err;
  }
  if (!result.ok) return { kind: 'invalid', errors: result.errors };
  deps.logger.info('settings updated', { by: principal.subject, sections: sections.join(',') });
  return { kind: 'ok', sections };
}
