/** @jsxImportSource hono/jsx */
/**
 * GET/POST /overrides (scope `objects`, as PUT /api/oid-override). The form goes through the API's
 * parser (parseOidOverride: same rules, same messages, shown beside the field they name) and the
 * same store call. The list of overrides is keyed by UID/OID, not by receiver, so it is shown
 * only to users who see every receiver (docs/web.md §OID overrides).
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { parseOidOverride } from '../../api/oid-override-request.js';
import { DATABASE_NOT_READY } from '../../api/routes/oid-override.js';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { forbidden, view } from '../page.js';
import { OverridesView, type OverrideForm } from '../views/overrides-view.js';

/** Which field each of the API's messages is about. */
const FIELD_OF: Record<string, keyof OverrideForm> = {
  'UID or OID must be provided': 'uid',
  'New override OID is required': 'new_override_oid',
  'UID is too long': 'uid',
  'UID must be numeric': 'uid',
  'UID must be hexadecimal': 'uid',
  'UID parse error': 'uid',
  'Invalid OID': 'oid',
  'Invalid related_oid': 'related_oid',
  'Invalid new_override_oid': 'new_override_oid',
};

const EMPTY: OverrideForm = { uid: '', oid: '', related_oid: '', new_override_oid: '' };

export function registerOverrides(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  function render(c: Context<WebEnv>, form: OverrideForm, errors: Record<string, string[]>, notice: { ok: boolean; text: string } | null, status: 200 | 400 | 503 = 200) {
    const principal = c.get('principal');
    const list = principal.visibleReceivers === null ? deps.store.overrides.list() : null;
    return view(c, deps, 'OID overrides', '/overrides', <OverridesView form={form} errors={errors} notice={notice} list={list} csrf={c.get('session').csrf} />, status);
  }

  web.get('/overrides', session, (c) => {
    if (!c.get('principal').scopes.has('objects')) return forbidden(c, deps, '/overrides');
    return render(c, EMPTY, {}, null);
  });

  web.post('/overrides', session, async (c) => {
    if (!c.get('principal').scopes.has('objects')) return forbidden(c, deps, '/overrides');
    const body = await c.req.parseBody();
    const form: OverrideForm = {
      uid: typeof body.uid === 'string' ? body.uid.trim() : '',
      oid: typeof body.oid === 'string' ? body.oid.trim() : '',
      related_oid: typeof body.related_oid === 'string' ? body.related_oid.trim() : '',
      new_override_oid: typeof body.new_override_oid === 'string' ? body.new_override_oid.trim() : '',
    };
    const verdict = parseOidOverride({ ...form });
    if (!verdict.ok) return render(c, form, { [FIELD_OF[verdict.error] ?? 'uid']: [verdict.error] }, null, 400);
    if (!deps.store.isWritable()) return render(c, form, {}, { ok: false, text: DATABASE_NOT_READY }, 503);
    deps.store.overrides.set({ ...verdict.value });
    const v = verdict.value;
    const target = `${v.matchKind.toUpperCase()} ${v.matchValue}${v.relatedOid ? ` related ${v.relatedOid}` : ''}`;
    deps.journalAction(c.get('session').login, `OID override ${target} set to ${v.overrideOid}`);
    return render(c, EMPTY, {}, { ok: true, text: `Saved: ${target} is now sent as ${v.overrideOid}.` });
  });
}
