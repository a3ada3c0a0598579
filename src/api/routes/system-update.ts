/**
 * System updates over the API (docs/updates.md "API"), scope `system_update`:
 *   POST /api/system/update[?allow_downgrade=1]  the bundle as the raw, streamed body; answered once it is
 *                                                installed (or refused: nothing changed)
 *   POST /api/system/update/acknowledge         acknowledges a rollback (the trouble LED goes dark)
 *   POST /api/system/update/check               checks the update channel now (answered once the manifest
 *                                                is judged; an install it starts runs on)
 *   POST /api/system/reboot                     asks the box to reboot (into a newly installed slot)
 * Errors are plain text `CODE: message`, as on every /api/system path. The rules live in
 * src/services/update-service.ts.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import {
  acknowledgeRollback,
  checkChannel,
  installUpdate,
  rebootBox,
  type UpdateServiceDeps,
} from '../../services/update-service.js';
import type { Principal } from '../../services/principal.js';
import { flagParam, parseQuery } from '../../services/query-params.js';
import { MAX_BUNDLE_BYTES } from '../../update/installer.js';
import type { ApiEnv } from '../deps.js';
import { FORBIDDEN } from '../responses.js';
import { addRoute } from '../route.js';
import { updateRefusalResponse } from '../system-replies.js';

export const REBOOT_UNAVAILABLE = 'REBOOT_UNAVAILABLE: this system cannot be rebooted from the gateway';
export const NO_ROLLBACK = 'NO_ROLLBACK: there is no rollback to acknowledge';
export const NO_CHANNEL = 'NO_CHANNEL: no update channel is configured (settings updates.channel_url)';
export const CHANNEL_UNAVAILABLE = 'UPDATE_UNAVAILABLE: system updates are not available on this system';

type Deps = UpdateServiceDeps & { readonly system: { readonly update?: UpdateServiceDeps['update'] } };

export function registerSystemUpdate(app: Hono<ApiEnv>, deps: Deps, auth: MiddlewareHandler<ApiEnv>): void {
  const service: UpdateServiceDeps = { clock: deps.clock, logger: deps.logger, update: deps.system.update };
  const principal = (c: Context<ApiEnv>): Principal => c.get('principal');

  addRoute(app, {
    path: '/api/system/update',
    style: 'text',
    auth,
    scope: 'system_update',
    maxBodyBytes: MAX_BUNDLE_BYTES,
    methods: {
      POST: async (c) => {
        const query = parseQuery(new URL(c.req.url).searchParams, { allow_downgrade: flagParam });
        if (!query.ok) return c.text(query.errors.join('\n'), 400);
        const outcome = await installUpdate(service, principal(c), {
          body: c.req.raw.body,
          allowDowngrade: query.values.allow_downgrade ?? false,
        });
        if (outcome.kind === 'forbidden') return c.text(FORBIDDEN, 403);
        if (outcome.kind === 'refused') return updateRefusalResponse(c, outcome);
        return c.json({ success: true, update: outcome.record, applied_at: 'next reboot' });
      },
    },
  });

  addRoute(app, {
    path: '/api/system/update/acknowledge',
    style: 'text',
    auth,
    scope: 'system_update',
    methods: {
      POST: async (c) => {
        const outcome = await acknowledgeRollback(service, principal(c));
        if (outcome.kind === 'forbidden') return c.text(FORBIDDEN, 403);
        if (outcome.kind === 'nothing') return c.text(NO_ROLLBACK, 409);
        return c.json({ success: true, update: outcome.record });
      },
    },
  });

  addRoute(app, {
    path: '/api/system/update/check',
    style: 'text',
    auth,
    scope: 'system_update',
    methods: {
      POST: async (c) => {
        const outcome = await checkChannel(service, principal(c));
        if (outcome.kind === 'forbidden') return c.text(FORBIDDEN, 403);
        if (outcome.kind === 'unavailable') return c.text(CHANNEL_UNAVAILABLE, 503);
        if (outcome.kind === 'no-channel') return c.text(NO_CHANNEL, 409);
        return c.json({ success: true, channel: outcome.channel });
      },
    },
  });

  addRoute(app, {
    path: '/api/system/reboot',
    style: 'text',
    auth,
    scope: 'system_update',
    methods: {
      POST: (c) => {
        const outcome = rebootBox(service, principal(c));
        if (outcome.kind === 'forbidden') return c.text(FORBIDDEN, 403);
        if (outcome.kind === 'unavailable') return c.text(REBOOT_UNAVAILABLE, 503);
        return c.json({ success: true });
      },
    },
  });
}
