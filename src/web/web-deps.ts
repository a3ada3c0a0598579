/**
 * What the technician's page needs beyond the management API's own dependencies. The page calls
 * the same services as the API (settings, store, device command port, services group, token
 * service, login throttle), so scopes and visible receivers apply identically (docs/web.md).
 */
import type { ApiDeps, ApiEnv } from '../api/deps.js';
import type { ApiListFilter, ApiObjectRow, ApiStorePort } from '../services/ports.js';
import type { Principal } from '../services/principal.js';

/** One stored OID override, as the store lists them. */
export interface WebOverride {
  readonly matchKind: 'uid' | 'oid';
  readonly matchValue: string;
  readonly relatedOid: string | null;
  readonly overrideOid: string;
  readonly updatedAt: number | null;
}

export interface WebStorePort extends ApiStorePort {
  readonly overrides: ApiStorePort['overrides'] & { list(): WebOverride[] };
  readonly objects: ApiStorePort['objects'] & {
    list(filter: ApiListFilter & { account?: string; connectionState?: string; search?: string }): {
      items: ApiObjectRow[];
      nextCursor: number | null;
    };
  };
}

export interface WebDeps extends ApiDeps {
  readonly store: WebStorePort;
  /** Calls `listener` with the journal id of every newly stored event; returns the unsubscribe. */
  readonly onEventStored: (listener: (id: number) => void) => () => void;
  /** Journals a technician's action as the internal event `technician_action` (never throws). */
  readonly journalAction: (login: string, action: string) => void;
  /** The settings schema's sections, for the settings forms (src/web/settings-form.ts). */
  readonly settingsView: { publicView(): object };
}

/** The logged-in technician, carried in the Hono context. */
export interface WebSession {
  readonly principal: Principal;
  /** The user's login (for the header and the journal). */
  readonly login: string;
  /** The CSRF token every form of this session carries. */
  readonly csrf: string;
}

export interface WebEnv {
  Bindings: ApiEnv['Bindings'];
  Variables: { session: WebSession; principal: Principal; errorStyle: 'text' | 'json' };
}
