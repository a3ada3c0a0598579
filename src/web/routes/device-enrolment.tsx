/** @jsxImportSource hono/jsx */
/**
 * GET/POST /device/enrolment (scope `device_control`): the page's side of POST
 * /api/device-enrolment. The rule is resetDeviceKey (src/services/device-enrolment-service.ts), called with the
 * session's principal exactly as the API calls it; this file only translates the form. Every reset
 * is journaled with the user's login.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { DEVICE_SCOPE } from '../../services/devices-service.js';
import { resetDeviceKey } from '../../services/device-enrolment-service.js';
import { hasScope } from '../../services/principal.js';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { forbidden, view } from '../page.js';
import { DeviceEnrolmentView } from '../views/device-enrolment-view.js';

const PARTIAL_RE = /^[0-9A-Fa-f]{1,32}$/;

export function registerDeviceEnrolment(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  const service = deps.deviceEnrolment;
  if (!service) return;
  const allowed = (c: Context<WebEnv>) => hasScope(c.get('principal'), DEVICE_SCOPE);
  const page = (
    c: Context<WebEnv>,
    partialUid: string,
    extra: { error?: string[]; result?: { ok: boolean; text: string } },
    status: 200 | 400 = 200,
  ) =>
    view(
      c,
      deps,
      'Replace a device',
      '/device',
      <DeviceEnrolmentView
        partialUid={partialUid}
        {...(extra.error ? { error: extra.error } : {})}
        result={extra.result ?? null}
        csrf={c.get('session').csrf}
      />,
      status,
    );

  web.get('/device/enrolment', session, (c) => (allowed(c) ? page(c, '', {}) : forbidden(c, deps, '/device')));

  web.post('/device/enrolment', session, async (c) => {
    if (!allowed(c)) return forbidden(c, deps, '/device');
    const body = await c.req.parseBody();
    const partialUid = typeof body.partial_uid === 'string' ? body.partial_uid.trim() : '';
    if (!PARTIAL_RE.test(partialUid)) return page(c, partialUid, { error: ['1 to 32 hex digits'] }, 400);
    const { principal, login } = c.get('session');
    const result = await resetDeviceKey(service, principal, { partialUid });
    if (result.kind === 'forbidden') return forbidden(c, deps, '/device');
    if (result.kind === 'no-object') {
      deps.journalAction(login, `device key reset for partial UID ${partialUid.toUpperCase()}: NO_OBJECT`);
      return page(c, partialUid, {
        result: { ok: false, text: 'NO_OBJECT: no single device with that partial UID on the receivers you see.' },
      });
    }
    const until = new Date(result.enrolUntil).toISOString();
    deps.journalAction(login, `device key reset for UID ${result.uid}: enrolment open until ${until}`);
    return page(c, partialUid, { result: { ok: true, text: `UID ${result.uid} may enrol until ${until}.` } });
  });
}
