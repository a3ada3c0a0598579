/** @jsxImportSource hono/jsx */
/**
 * The System view (scope `system_update`; docs/web.md "System"). Each action calls the function its
 * API endpoint calls (src/services/system-service.ts, backup-service.ts) and is journaled with the
 * user's login:
 *   GET  /system           systemReport
 *   POST /system/backup    downloadBackup: a form post (passphrase twice), answered with the file itself
 *   POST /system/restore   restoreUpload: the page's script sends the file as the raw body with the
 *                          CSRF and passphrase headers; any other body is refused before it is read
 *   POST /system/restart   restartGateway, after the confirmation box
 *   POST /system/update, /system/update/acknowledge, /system/reboot: src/web/routes/system-update.tsx
 */
import { Readable } from 'node:stream';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { readPassphrase, refusalResponse } from '../../api/system-replies.js';
import type { SystemPort } from '../../services/ports.js';
import { downloadBackup, restoreUpload } from '../../services/backup-service.js';
import { mayUpdateSystem } from '../../services/principal.js';
import { restartGateway, systemReport } from '../../services/system-service.js';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { forbidden, view } from '../page.js';
import { rawBodyOnlyFor } from '../raw-body-only.js';
import { messagePage } from '../views/message-page.js';
import { SystemView, type SystemViewProps } from '../views/system-view.js';
import { registerSystemUpdatePages } from './system-update.js';

const PATH = '/system';

export function registerSystem(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  const system: SystemPort | undefined = deps.system;
  if (!system) return;
  const logger = deps.logger.child('web:system');
  const service = { ...deps, system, logger, ...(system.uploadLimits ? { limits: system.uploadLimits } : {}) };

  async function render(
    c: Context<WebEnv>,
    extra: Partial<SystemViewProps> = {},
    status: 200 | 400 | 409 | 503 = 200,
  ): Promise<Response> {
    const outcome = await systemReport(service, c.get('principal'));
    if (outcome.kind === 'forbidden') return forbidden(c, deps, PATH);
    return view(
      c,
      deps,
      'System',
      PATH,
      <SystemView csrf={c.get('session').csrf} report={outcome.report} notice={null} {...extra} />,
      status,
    );
  }

  web.get(PATH, session, (c) => render(c));

  web.post(`${PATH}/backup`, session, async (c) => {
    const { login, principal } = c.get('session');
    if (!mayUpdateSystem(principal)) return forbidden(c, deps, PATH);
    const body = await c.req.parseBody();
    const passphrase = typeof body.passphrase === 'string' ? body.passphrase : '';
    if (passphrase !== body.passphrase_again)
      return render(c, { backupErrors: { passphrase_again: ['the two passphrases differ'] } }, 400);
    const journal = body.journal === '1';
    const outcome = await downloadBackup(service, principal, {
      passphrase,
      journal,
      instanceName: deps.settings.current().general.instance_name,
    });
    if (outcome.kind === 'forbidden') return forbidden(c, deps, PATH);
    if (outcome.kind === 'refused') return render(c, { backupErrors: { passphrase: [outcome.message] } }, 400);
    deps.journalAction(login, `downloaded a backup ${journal ? 'with' : 'without'} the journal`);
    return new Response(Readable.toWeb(outcome.body) as ReadableStream<Uint8Array>, {
      status: 200,
      headers: {
        'Content-Type': 'application/octet-stream',
        'Content-Disposition': `attachment; filename="${outcome.fileName}"`,
      },
    });
  });

  // Refused before the session reads anything: a multipart form would be parsed whole into memory.
  const rawBodyOnly = rawBodyOnlyFor(
    "Uploading a backup needs this page's script. Without it, copy the file to the box and run vigil restore.",
    PATH,
  );

  web.post(`${PATH}/restore`, rawBodyOnly, session, async (c) => {
    const { login, principal } = c.get('session');
    const newIdentity = new URL(c.req.url).searchParams.get('new_identity') === '1';
    const outcome = await restoreUpload(service, principal, {
      body: c.req.raw.body,
      passphrase: readPassphrase(c),
      newIdentity,
    });
    if (outcome.kind === 'forbidden') return c.text('FORBIDDEN', 403);
    if (outcome.kind === 'refused') {
      deps.journalAction(login, `restore refused: ${outcome.code}`);
      return refusalResponse(c, outcome);
    }
    const { backup } = outcome;
    deps.journalAction(
      login,
      `staged a restore of the backup of ${backup.instance_name || 'a box'} made ${backup.created_at}${newIdentity ? ' as a new box' : ''}`,
    );
    return c.json({ success: true, backup, new_identity: newIdentity, applied_at: 'next start' });
  });

  registerSystemUpdatePages(web, deps, session, render);

  web.post(`${PATH}/restart`, session, async (c) => {
    const { login, principal } = c.get('session');
    if (!mayUpdateSystem(principal)) return forbidden(c, deps, PATH);
    const body = await c.req.parseBody();
    if (body.confirm !== 'yes')
      return render(c, { notice: { ok: false, text: 'Tick the box to confirm the restart.' } }, 400);
    const outcome = restartGateway(service, principal);
    if (outcome.kind === 'forbidden') return forbidden(c, deps, PATH);
    if (outcome.kind === 'unavailable')
      return render(
        c,
        { notice: { ok: false, text: 'This gateway was not started by a supervisor that restarts it.' } },
        503,
      );
    if (outcome.kind === 'too-soon') {
      return render(
        c,
        {
          notice: {
            ok: false,
            text: `The gateway started less than 3 minutes ago; try again in ${outcome.retryAfterSeconds} s.`,
          },
        },
        409,
      );
    }
    deps.journalAction(login, 'restarted the gateway');
    return c.html(messagePage('Restarting', 'The gateway is restarting. Open the page again in a minute.', PATH));
  });
}
