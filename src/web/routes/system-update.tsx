/** @jsxImportSource hono/jsx */
/**
 * The System view's update actions (docs/updates.md "Page"), each through the function its API endpoint
 * calls (src/services/update-service.ts) and journaled as `technician_action` with the user's login:
 *   POST /system/update              installUpdate: the bundle as the raw body sent by the page's script
 *   POST /system/update/acknowledge  acknowledgeRollback
 *   POST /system/update/check        checkChannel: the update channel, now
 *   POST /system/reboot              rebootBox, after the confirmation box
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { updateRefusalResponse } from '../../api/system-replies.js';
import {
  acknowledgeRollback,
  checkChannel,
  installUpdate,
  rebootBox,
  type UpdateServiceDeps,
} from '../../services/update-service.js';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { forbidden } from '../page.js';
import { rawBodyOnlyFor } from '../raw-body-only.js';
import { messagePage } from '../views/message-page.js';
import type { SystemViewProps } from '../views/system-view.js';

const PATH = '/system';

type Render = (
  c: Context<WebEnv>,
  extra?: Partial<SystemViewProps>,
  status?: 200 | 400 | 409 | 503,
) => Promise<Response>;

export function registerSystemUpdatePages(
  web: Hono<WebEnv>,
  deps: WebDeps,
  session: MiddlewareHandler<WebEnv>,
  render: Render,
): void {
  const service: UpdateServiceDeps = {
    clock: deps.clock,
    logger: deps.logger.child('web:update'),
    update: deps.system?.update,
  };
  const rawBodyOnly = rawBodyOnlyFor(
    "Uploading a bundle needs this page's script. Without it, copy the bundle to the box and run vigil update install.",
    PATH,
  );

  web.post(`${PATH}/update`, rawBodyOnly, session, async (c) => {
    const { login, principal } = c.get('session');
    const outcome = await installUpdate(service, principal, {
      body: c.req.raw.body,
      allowDowngrade: new URL(c.req.url).searchParams.get('allow_downgrade') === '1',
    });
    if (outcome.kind === 'forbidden') return c.text('FORBIDDEN', 403);
    if (outcome.kind === 'refused') {
      deps.journalAction(login, `system update refused: ${outcome.code}`);
      return updateRefusalResponse(c, outcome);
    }
    const { record } = outcome;
    deps.journalAction(login, `installed system update ${record.to_version} in slot ${record.slot}`);
    return c.json({ success: true, update: record, applied_at: 'next reboot' });
  });

  web.post(`${PATH}/update/acknowledge`, session, async (c) => {
    const { login, principal } = c.get('session');
    const outcome = await acknowledgeRollback(service, principal);
    if (outcome.kind === 'forbidden') return forbidden(c, deps, PATH);
    if (outcome.kind === 'nothing')
      return render(c, { notice: { ok: false, text: 'There is no rollback to acknowledge.' } }, 409);
    deps.journalAction(login, `acknowledged the rollback of system update ${outcome.record.to_version}`);
    return render(c, { notice: { ok: true, text: 'Rollback acknowledged.' } });
  });

  web.post(`${PATH}/update/check`, session, async (c) => {
    const { login, principal } = c.get('session');
    const outcome = await checkChannel(service, principal);
    if (outcome.kind === 'forbidden') return forbidden(c, deps, PATH);
    if (outcome.kind !== 'ok')
      return render(c, { notice: { ok: false, text: 'No update channel is configured on this box.' } }, 409);
    deps.journalAction(login, 'checked the update channel');
    const { error, decision } = outcome.channel;
    const text = error
      ? `The channel check failed: ${error.code}: ${error.message}`
      : `Checked: ${decision ?? 'done'}.`;
    return render(c, { notice: { ok: error === null, text } });
  });

  web.post(`${PATH}/reboot`, session, async (c) => {
    const { login, principal } = c.get('session');
    const body = await c.req.parseBody();
    if (body.confirm !== 'yes')
      return render(c, { notice: { ok: false, text: 'Tick the box to confirm the reboot.' } }, 400);
    const outcome = rebootBox(service, principal);
    if (outcome.kind === 'forbidden') return forbidden(c, deps, PATH);
    if (outcome.kind === 'unavailable')
      return render(c, { notice: { ok: false, text: 'This system cannot be rebooted from the gateway.' } }, 503);
    deps.journalAction(login, 'rebooted the box');
    return c.html(messagePage('Rebooting', 'The box is rebooting. Open the page again in a minute or two.', PATH));
  });
}
