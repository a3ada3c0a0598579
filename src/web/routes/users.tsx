/** @jsxImportSource hono/jsx */
/**
 * GET /users (scope `settings` or `users`) and POST /users/:id/grants (scope `users`). Grants are
 * checked by the API's own parser (parseGrantBody) and written through the same store call; the
 * change is journaled with the user's login.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { GRANTABLE_SCOPES } from '../../auth/scopes.js';
import { parseGrantBody } from '../../api/routes/users-grants.js';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { forbidden, view } from '../page.js';
import { UsersView, type UserRow } from '../views/users-view.js';

export function registerUsers(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  function render(c: Context<WebEnv>, notice: { ok: boolean; text: string } | null, status: 200 | 400 | 404 = 200) {
    const scopes = c.get('principal').scopes;
    const records = scopes.has('settings');
    const grants = scopes.has('users');
    const rows: UserRow[] = deps.settings.current().users.map((u) => ({
      id: u.id,
      login: records ? u.login : null,
      scopes: records ? u.scopes : null,
      receivers: records ? (u.visible_receivers.all ? 'all' : u.visible_receivers.custom.join(', ')) : null,
      tokenTime: records ? u.token_time : null,
      grants: grants ? deps.store.grants.get(u.id) : null,
    }));
    const props = { rows, grantable: GRANTABLE_SCOPES, csrf: c.get('session').csrf, notice, canEditAccounts: records };
    return view(c, deps, 'Users', '/users', <UsersView {...props} />, status);
  }

  web.get('/users', session, (c) => {
    const scopes = c.get('principal').scopes;
    if (!scopes.has('settings') && !scopes.has('users')) return forbidden(c, deps, '/users');
    return render(c, null);
  });

  web.post('/users/:id/grants', session, async (c) => {
    if (!c.get('principal').scopes.has('users')) return forbidden(c, deps, '/users');
    const idText = c.req.param('id');
    const user = /^[1-9][0-9]{0,14}$/.test(idText) ? deps.settings.current().users.find((u) => u.id === Number(idText)) : undefined;
    if (!user) return render(c, { ok: false, text: 'User not found' }, 404);
    const body = await c.req.parseBody({ all: true });
    const raw = body.scopes;
    const scopes = parseGrantBody({ scopes: raw === undefined ? [] : Array.isArray(raw) ? raw : [raw] });
    if (!scopes) return render(c, { ok: false, text: 'Unknown grant' }, 400);
    const { login, principal } = c.get('session');
    deps.store.grants.set(user.id, scopes, principal.subject);
    deps.journalAction(login, `grants of user ${user.id} set to ${scopes.join(',') || 'none'}`);
    return render(c, { ok: true, text: `Grants of user ${user.id} saved: ${scopes.join(', ') || 'none'}.` });
  });
}
