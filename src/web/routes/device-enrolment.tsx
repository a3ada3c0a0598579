/** @jsxImportSource hono/jsx */
/**
 * GET/POST /device/enrolment (scope `device_control`): the page's side of POST
 * /api/device-enrolment. The rule is DeviceEnrolmentService.resetDeviceKey, called with the
 * session's principal exactly as the API calls it; this file only translates the form. Every reset
 * is journaled with the user's login.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { forbidden, view } from '../page.js';
import { DeviceEnrolmentView } from '../views/device-enrolment-view.js';

const PARTIAL_RE = /^[0-9A-Fa-f]{1,32}$/;

export function registerDeviceEnrolment(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  const service = deps.deviceEnrolment;
  if (!service) return;
  const allowed = (c: Context<WebEnv>) => c.get('principal').scopes.has('device_control');
  const page = (c: Context<WebEnv>, partialUid: string, extra: { error?: string[]; result?: { ok: boolean; text: string } }, status: 200 | 400 = 200) =>
    view(c, deps, 'Replace a device', '/device', (
      <DeviceEnrolmentView partialUid={partialUid} {...(extra.error ? { error: extra.error } : {})} result={extra.result ?? null} csrf={c.get('session').csrf} />
    ), status);

  web.get('/device/enrolment', session, (c) => (allowed(c) ? page(c, '', {}) : forbidden(c, deps, '/device')));

  web.post('/device/enrolment', session, async (c) => {
    if (!allowed(c)) return forbidden(c, deps, '/device');
    const body = await c.req.parseBody();
    const partialUid = typeof body.partial_uid === 'string' ? body.partial_uid.trim() : '';
    if (!PARTIAL_RE.test(partialUid)) return page(c, partialUid, { error: ['1 to 32 hex digits'] }, 400);
    const { principal, login } = c.get('session');
    const outcome = service.resetDeviceKey(principal, { partialUid });
    if (!outcome.ok) {
      deps.journalAction(login, `device key reset for partial UID ${partialUid.toUpperCase()}: ${outcome.error}`);
      return page(c, partialUid, { result: { ok: false, text: 'NO_OBJECT: no single device with that partial UID on the receivers you see.' } });
    }
    const until = new Date(outcome.enrolUntil).toISOString();
    deps.journalAction(login, `device key reset for UID ${outcome.uid}: enrolment open until ${until}`);
    return page(c, partialUid, { result: { ok: true, text: `UID ${outcome.uid} may enrol until ${until}.` } });
  });
}
