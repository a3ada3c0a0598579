/** @jsxImportSource hono/jsx */
/** GET / : the status view (any logged-in user, like GET /api/status; visible receivers apply). */
import type { Hono, MiddlewareHandler } from 'hono';
import { statusBody } from '../../api/status-body.js';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { view } from '../page.js';
import { StatusView } from '../views/status-view.js';

export function registerStatus(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  web.get('/', session, (c) => {
    const status = statusBody(deps, c.get('principal').visibleReceivers);
    return view(c, deps, 'Status', '/', <StatusView status={status} now={deps.clock.now()} />);
  });
}
