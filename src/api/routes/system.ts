/**
 * The box itself (docs/api.md "System", docs/backup.md "API"), all with scope `system_update`:
 *   GET  /api/system          versions, instance, last run, staged restore, A/B slots and the last update
 *   GET  /api/system/backup   the encrypted backup, streamed; passphrase in X-Vigil-Backup-Passphrase
 *   POST /api/system/restore  a backup file as the streamed body; checked whole, staged for the next start
 *   POST /api/system/restart  ends the gateway cleanly; systemd (Restart=always) starts it again
 *   POST /api/system/update, /update/acknowledge, /reboot: src/api/routes/system-update.ts
 * The passphrase never travels in the URL, which proxies and logs keep. Errors are plain text
 * `CODE: message`. The rules live in src/services/system-service.ts and backup-service.ts.
 */
import { Readable } from 'node:stream';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { downloadBackup, MAX_UPLOAD_BYTES, restoreUpload } from '../../services/backup-service.js';
import { restartGateway, systemReport } from '../../services/system-service.js';
import type { SystemPort } from '../../services/ports.js';
import { flagParam, parseQuery } from '../../services/query-params.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { FORBIDDEN } from '../responses.js';
import { addRoute } from '../route.js';
import { readPassphrase, refusalResponse } from '../system-replies.js';
import { registerSystemUpdate } from './system-update.js';

export function registerSystem(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  const system: SystemPort | undefined = deps.system;
  if (!system) return;
  const logger = deps.logger.child('system');
  const service = { ...deps, system, logger, ...(system.uploadLimits ? { limits: system.uploadLimits } : {}) };

  const report = async (c: Context<ApiEnv>): Promise<Response> => {
    const outcome = await systemReport(service, c.get('principal'));
    return outcome.kind === 'ok' ? c.json(outcome.report) : c.text(FORBIDDEN, 403);
  };
  addRoute(app, {
    path: '/api/system',
    style: 'text',
    auth,
    scope: 'system_update',
    methods: { GET: report, HEAD: report },
  });

  addRoute(app, {
    path: '/api/system/backup',
    style: 'text',
    auth,
    scope: 'system_update',
    methods: {
      GET: async (c) => {
        const query = parseQuery(new URL(c.req.url).searchParams, { journal: flagParam });
        if (!query.ok) return c.text(query.errors.join('\n'), 400);
        const outcome = await downloadBackup(service, c.get('principal'), {
          passphrase: readPassphrase(c),
          journal: query.values.journal ?? false,
          instanceName: deps.settings.current().general.instance_name,
        });
        if (outcome.kind === 'forbidden') return c.text(FORBIDDEN, 403);
        if (outcome.kind === 'refused') return refusalResponse(c, outcome);
        return new Response(Readable.toWeb(outcome.body) as ReadableStream<Uint8Array>, {
          status: 200,
          headers: {
            'Content-Type': 'application/octet-stream',
            'Content-Disposition': `attachment; filename="${outcome.fileName}"`,
            'Cache-Control': 'no-store',
            'X-Content-Type-Options': 'nosniff',
          },
        });
      },
    },
  });

  addRoute(app, {
    path: '/api/system/restore',
    style: 'text',
    auth,
    scope: 'system_update',
    maxBodyBytes: MAX_UPLOAD_BYTES,
    methods: {
      POST: async (c) => {
        const query = parseQuery(new URL(c.req.url).searchParams, { new_identity: flagParam });
        if (!query.ok) return c.text(query.errors.join('\n'), 400);
        const newIdentity = query.values.new_identity ?? false;
        const outcome = await restoreUpload(service, c.get('principal'), {
          body: c.req.raw.body,
          passphrase: readPassphrase(c),
          newIdentity,
        });
        if (outcome.kind === 'forbidden') return c.text(FORBIDDEN, 403);
        if (outcome.kind === 'refused') return refusalResponse(c, outcome);
        return c.json({
          success: true,
          backup: outcome.backup,
          new_identity: outcome.newIdentity,
          applied_at: 'next start',
        });
      },
    },
  });

  registerSystemUpdate(app, service, auth);

  addRoute(app, {
    path: '/api/system/restart',
    style: 'text',
    auth,
    scope: 'system_update',
    methods: {
      POST: (c) => {
        const outcome = restartGateway(service, c.get('principal'));
        if (outcome.kind === 'forbidden') return c.text(FORBIDDEN, 403);
        if (outcome.kind === 'unavailable')
          return c.text('RESTART_UNAVAILABLE: this gateway was not started by a supervisor that restarts it', 503);
        if (outcome.kind === 'too-soon') {
          c.header('Retry-After', String(outcome.retryAfterSeconds));
          return c.text(
            `TOO_SOON: the gateway started less than 3 minutes ago; try again in ${outcome.retryAfterSeconds} s`,
            409,
          );
        }
        return c.json({ success: true });
      },
    },
  });
}
