/** @jsxImportSource hono/jsx */
/**
 * GET /users (scope `settings` or `users`) and POST /users/:id/grants (scope `users`). Both go
 * through src/services/users-service.ts, the functions GET/PUT /api/users/:id/grants call: the
 * same scopes, parser and store call. A saved change is journaled with the user's login.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { GRANTABLE_SCOPES } from '../../auth/scopes.js';
import { mayManageSettings } from '../../services/settings-access.js';
import { listUsers, setUserGrants } from '../../services/users-service.js';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { forbidden, view } from '../page.js';
import { UsersView, type UserRow } from '../views/users-view.js';

export function registerUsers(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  const service = { settings: deps.settings, store: deps.store, logger: deps.logger.child('web:users') };

  function render(
    c: Context<WebEnv>,
    notice: { ok: boolean; text: string } | null,
    status: 200 | 400 | 404 | 503 = 200,
  ) {
    const listed = listUsers(service, c.get('principal'));
    if (listed.kind === 'forbidden') return forbidden(c, deps, '/users');
    const rows: UserRow[] = listed.users.map(({ id, record, grants }) => ({
      id,
      login: record ? record.login : null,
      scopes: record ? record.scopes : null,
      receivers: record ? (record.visible_receivers.all ? 'all' : record.visible_receivers.custom.join(', ')) : null,
      tokenTime: record ? record.token_time : null,
      grants,
    }));
    const canEditAccounts = mayManageSettings(c.get('principal'));
    const props = { rows, grantable: GRANTABLE_SCOPES, csrf: c.get('session').csrf, notice, canEditAccounts };
    return view(c, deps, 'Users', '/users', <UsersView {...props} />, status);
  }

  web.get('/users', session, (c) => render(c, null));

  web.post('/users/:id/grants', session, async (c) => {
    const body = await c.req.parseBody({ all: true });
    const raw = body.scopes;
    const { login, principal } = c.get('session');
    const outcome = await setUserGrants(service, principal, c.req.param('id'), {
      scopes: raw === undefined ? [] : Array.isArray(raw) ? raw : [raw],
    });
    switch (outcome.kind) {
      case 'forbidden':
        return forbidden(c, deps, '/users');
      case 'not-found':
        return render(c, { ok: false, text: 'User not found' }, 404);
      case 'invalid':
        return render(c, { ok: false, text: 'Unknown grant' }, 400);
      case 'not-ready':
        return render(c, { ok: false, text: 'Database is not ready: the grants were not changed.' }, 503);
      case 'ok': {
        const list = outcome.scopes.join(',') || 'none';
        deps.journalAction(login, `grants of user ${outcome.userId} set to ${list}`);
        return render(c, {
          ok: true,
          text: `Grants of user ${outcome.userId} saved: ${outcome.scopes.join(', ') || 'none'}.`,
        });
      }
    }
  });
}
