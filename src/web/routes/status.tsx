/** @jsxImportSource hono/jsx */
/** GET / : the status view (any logged-in user, like GET /api/status: the same statusFor(), so visible receivers apply alike). */
import type { Hono, MiddlewareHandler } from 'hono';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { view } from '../page.js';
import { StatusView } from '../views/status-view.js';
import { statusFor } from '../../services/status-service.js';

/** `rx:<kind>:<id>` and `out:<id>` to the names configured for them (shown above the health name). */
export function componentNames(settings: object): Map<string, string> {
  const names = new Map<string, string>();
  const s = settings as { receivers?: Record<string, unknown>; outputs?: unknown };
  for (const [list, items] of Object.entries(s.receivers ?? {})) {
    const kind = list.replace(/_receivers$/, '');
    if (!Array.isArray(items)) continue;
    for (const r of items as { id?: unknown; name?: unknown }[])
      if (typeof r.name === 'string') names.set(`rx:${kind}:${String(r.id)}`, r.name);
  }
  if (Array.isArray(s.outputs))
    for (const o of s.outputs as { id?: unknown; name?: unknown }[])
      if (typeof o.name === 'string') names.set(`out:${String(o.id)}`, o.name);
  return names;
}

export function registerStatus(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  web.get('/', session, (c) => {
    const status = statusFor(deps, c.get('principal'));
    return view(
      c,
      deps,
      'Status',
      '/',
      <StatusView status={status} now={deps.clock.now()} names={componentNames(deps.settingsView.publicView())} />,
    );
  });
}
