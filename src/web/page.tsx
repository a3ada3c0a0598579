/** @jsxImportSource hono/jsx */
/** Renders a view inside the layout for the logged-in technician. */
import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { WebDeps, WebEnv } from './web-deps.js';
import { Layout } from './views/layout.js';
import { renderPage } from './render.js';

export function view(
  c: Context<WebEnv>,
  deps: Pick<WebDeps, 'settings'>,
  title: string,
  active: string,
  children: Child,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  const element = (
    <Layout
      title={title}
      active={active}
      instanceName={deps.settings.current().general.instance_name}
      session={c.get('session')}
    >
      {children}
    </Layout>
  );
  return renderPage(c, element, status);
}

/** A view this user's scopes do not open: the same refusal as the API's 403, as a page. */
export function forbidden(c: Context<WebEnv>, deps: Pick<WebDeps, 'settings'>, active: string): Promise<Response> {
  return view(
    c,
    deps,
    'Not allowed',
    active,
    <section class="card message">
      <h1>Not allowed</h1>
      <p>Your account does not have the permission this view needs. Ask an administrator.</p>
    </section>,
    403,
  );
}
