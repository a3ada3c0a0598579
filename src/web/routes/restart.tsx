/** @jsxImportSource hono/jsx */
/**
 * GET/POST /restart (scope `restart_services`): the services group's restart, the one
 * GET /api/restart-services calls, only after the confirmation box was ticked (checked on the
 * server; the script's extra confirm() dialog is a courtesy). Journaled with the user's login.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { describeError } from '../../core/errors.js';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { forbidden, view } from '../page.js';
import { RestartView } from '../views/restart-view.js';

export function registerRestart(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  const logger = deps.logger.child('web:restart');

  web.get('/restart', session, (c) => {
    if (!c.get('principal').scopes.has('restart_services')) return forbidden(c, deps, '/restart');
    return view(c, deps, 'Restart', '/restart', <RestartView csrf={c.get('session').csrf} notice={null} needConfirm={false} />);
  });

  web.post('/restart', session, async (c) => {
    if (!c.get('principal').scopes.has('restart_services')) return forbidden(c, deps, '/restart');
    const { csrf, login, principal } = c.get('session');
    const body = await c.req.parseBody();
    if (body.confirm !== 'yes') return view(c, deps, 'Restart', '/restart', <RestartView csrf={csrf} notice={null} needConfirm={true} />, 400);
    logger.info('restart requested', { by: principal.subject });
    deps.journalAction(login, 'restarted receivers and outputs');
    try {
      await deps.services.restart();
    } catch (err) {
      logger.error('restart failed', { by: principal.subject, error: describeError(err) });
      return view(c, deps, 'Restart', '/restart', <RestartView csrf={csrf} notice={{ ok: false, text: 'The restart failed (E_3); see the status view and the log.' }} needConfirm={false} />, 500);
    }
    return view(c, deps, 'Restart', '/restart', <RestartView csrf={csrf} notice={{ ok: true, text: 'Receivers and outputs restarted. Check the status view.' }} needConfirm={false} />);
  });
}
