/** @jsxImportSource hono/jsx */
/**
 * GET/POST /restart (scope `restart_services`): restartServices (src/services/restart-service.ts),
 * the function GET /api/restart-services calls, only after the confirmation box was ticked
 * (checked on the server; the script's extra confirm() dialog is a courtesy). Journaled with the
 * user's login.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { mayRestart, restartServices } from '../../services/restart-service.js';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { forbidden, view } from '../page.js';
import { RestartView } from '../views/restart-view.js';

export function registerRestart(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  const service = { services: deps.services, logger: deps.logger.child('web:restart') };

  web.get('/restart', session, (c) => {
    if (!mayRestart(c.get('principal'))) return forbidden(c, deps, '/restart');
    return view(
      c,
      deps,
      'Restart',
      '/restart',
      <RestartView csrf={c.get('session').csrf} notice={null} needConfirm={false} />,
    );
  });

  web.post('/restart', session, async (c) => {
    const { csrf, login, principal } = c.get('session');
    // The scope answers before the confirmation box (as the API's 403 comes before anything else).
    if (!mayRestart(principal)) return forbidden(c, deps, '/restart');
    const body = await c.req.parseBody();
    if (body.confirm !== 'yes')
      return view(c, deps, 'Restart', '/restart', <RestartView csrf={csrf} notice={null} needConfirm={true} />, 400);
    deps.journalAction(login, 'restarted receivers and outputs');
    try {
      const outcome = await restartServices(service, principal);
      if (outcome.kind === 'forbidden') return forbidden(c, deps, '/restart');
    } catch {
      return view(
        c,
        deps,
        'Restart',
        '/restart',
        <RestartView
          csrf={csrf}
          notice={{ ok: false, text: 'The restart failed (E_3); see the status view and the log.' }}
          needConfirm={false}
        />,
        500,
      );
    }
    return view(
      c,
      deps,
      'Restart',
      '/restart',
      <RestartView
        csrf={csrf}
        notice={{ ok: true, text: 'Receivers and outputs restarted. Check the status view.' }}
        needConfirm={false}
      />,
    );
  });
}
