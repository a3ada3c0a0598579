/** @jsxImportSource hono/jsx */
/**
 * GET/POST /login and POST /logout. The password check is the API's own (checkLogin): the same
 * accounts, the same per-address throttle, the same token, which then lives in the session cookie.
 * The login form is protected by a double-submit cookie (login CSRF) and the Origin check.
 */
import type { Context, Hono } from 'hono';
import { checkLogin } from '../../services/login-service.js';
import { logout } from '../../services/logout-service.js';
import type { WebDeps, WebEnv } from '../web-deps.js';
import {
  CSRF_FIELD,
  endSession,
  loginCookie,
  loginCsrf,
  readSession,
  sameOrigin,
  sameSecret,
  startSession,
} from '../session.js';
import { Layout } from '../views/layout.js';
import { LoginView } from '../views/login-view.js';
import { messagePage } from '../views/message-page.js';
import { renderPage } from '../render.js';
import type { MiddlewareHandler } from 'hono';

/** Only a local path may follow a login (no open redirect to another site). */
export function safeNext(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])[^\s]*$/.test(value) ? value : '/';
}

function clientAddress(c: Context<WebEnv>): string {
  return c.env?.incoming?.socket?.remoteAddress ?? 'unknown';
}

export function registerLogin(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  const logger = deps.logger.child('web:login');

  function form(
    c: Context<WebEnv>,
    props: { next: string; login?: string; error?: string },
    status: 200 | 401 | 429 | 400 = 200,
  ) {
    const element = (
      <Layout
        title="Log in"
        active="/login"
        instanceName={deps.settings.current().general.instance_name}
        session={null}
      >
        <LoginView csrf={loginCsrf(c)} {...props} />
      </Layout>
    );
    return renderPage(c, element, status);
  }

  web.get('/login', (c) => form(c, { next: safeNext(c.req.query('next')) }));

  web.post('/login', async (c) => {
    const body = await c.req.parseBody();
    const next = safeNext(body.next);
    if (!sameOrigin(c) || !sameSecret(typeof body[CSRF_FIELD] === 'string' ? body[CSRF_FIELD] : null, loginCookie(c))) {
      return c.html(
        messagePage(
          'Refused',
          'The login form was out of date or not sent by this page. Reload it and try again.',
          '/login',
        ),
        403,
      );
    }
    const name = typeof body.login === 'string' ? body.login : '';
    try {
      const outcome = await checkLogin(deps, logger, clientAddress(c), async () =>
        typeof body.login === 'string' && typeof body.password === 'string'
          ? { login: body.login, password: body.password }
          : null,
      );
      switch (outcome.kind) {
        case 'throttled':
          c.header('Retry-After', String(outcome.retryAfterS));
          return form(
            c,
            {
              next,
              login: name,
              error: `Too many failed attempts from this address. Try again in ${outcome.retryAfterS} s.`,
            },
            429,
          );
        case 'invalid':
          return form(c, { next, login: name, error: 'Enter a login and a password.' }, 400);
        case 'refused':
          return form(c, { next, login: name, error: 'Wrong login or password.' }, 401);
        case 'ok':
          startSession(c, outcome.token, outcome.expiresAt, deps.clock.now());
          deps.journalAction(outcome.user.login, 'logged in to the page');
          return c.redirect(next, 303);
      }
    } catch {
      return form(c, { next, login: name, error: 'The gateway could not check the login (server failure E_3).' }, 400);
    }
  });

  web.post('/logout', session, async (c) => {
    // The token ends too, not only the cookie: it is also an API bearer token (#28.7).
    await logout(deps, logger, readSession(c)!);
    deps.journalAction(c.get('session').login, 'logged out');
    endSession(c);
    return c.redirect('/login', 303);
  });
}
