/** @jsxImportSource hono/jsx */
/**
 * GET/POST /overrides (scope `objects`, as PUT /api/oid-override). The form goes to setOverride
 * (src/services/overrides-service.ts), the function PUT /api/oid-override calls: the same scope,
 * parser, visibility rule and messages; this file puts each message beside the field it names.
 * The list of overrides is shown only to users who see every receiver (listOverrides).
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { DATABASE_NOT_READY } from '../../services/principal.js';
import { NOT_VISIBLE } from '../../services/overrides-service.js';
import { listOverrides, setOverride } from '../../services/overrides-service.js';
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

/** Shown for a device the user cannot see or that does not exist (never telling which). */
const NOT_VISIBLE_TEXT = `${NOT_VISIBLE}: no device on the receivers you can see has this UID or OID.`;

export function registerOverrides(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  const service = { store: deps.store, logger: deps.logger.child('web:overrides') };

  function render(
    c: Context<WebEnv>,
    form: OverrideForm,
    errors: Record<string, string[]>,
    notice: { ok: boolean; text: string } | null,
    status: 200 | 400 | 503 = 200,
  ) {
    const listed = listOverrides(service, c.get('principal'));
    const list = listed.kind === 'ok' ? listed.overrides : null;
    return view(
      c,
      deps,
      'OID overrides',
      '/overrides',
      <OverridesView form={form} errors={errors} notice={notice} list={list} csrf={c.get('session').csrf} />,
      status,
    );
  }

  web.get('/overrides', session, (c) => {
    if (listOverrides(service, c.get('principal')).kind === 'forbidden') return forbidden(c, deps, '/overrides');
    return render(c, EMPTY, {}, null);
  });

  web.post('/overrides', session, async (c) => {
    const body = await c.req.parseBody();
    const form: OverrideForm = {
      uid: typeof body.uid === 'string' ? body.uid.trim() : '',
      oid: typeof body.oid === 'string' ? body.oid.trim() : '',
      related_oid: typeof body.related_oid === 'string' ? body.related_oid.trim() : '',
      new_override_oid: typeof body.new_override_oid === 'string' ? body.new_override_oid.trim() : '',
    };
    const outcome = await setOverride(service, c.get('principal'), { ...form });
    switch (outcome.kind) {
      case 'forbidden':
        return forbidden(c, deps, '/overrides');
      case 'invalid':
        return render(c, form, { [FIELD_OF[outcome.error] ?? 'uid']: [outcome.error] }, null, 400);
      case 'not-ready':
        return render(c, form, {}, { ok: false, text: DATABASE_NOT_READY }, 503);
      case 'not-visible':
        return render(c, form, {}, { ok: false, text: NOT_VISIBLE_TEXT }, 400);
      case 'ok':
        break;
    }
    const v = outcome.override;
    const target = `${v.matchKind.toUpperCase()} ${v.matchValue}${v.relatedOid ? ` related ${v.relatedOid}` : ''}`;
    deps.journalAction(c.get('session').login, `OID override ${target} set to ${v.overrideOid}`);
    return render(c, EMPTY, {}, { ok: true, text: `Saved: ${target} is now sent as ${v.overrideOid}.` });
  });
}
