/** @jsxImportSource hono/jsx */
/**
 * The frame of every page: header with the gateway's name, the views this user may open, the
 * logout form, and the one stylesheet and script (served as files: the CSP allows no inline code).
 */
import type { Child } from 'hono/jsx';
import type { WebSession } from '../web-deps.js';
import { assetUrl } from '../assets.js';
import { CSRF_FIELD } from '../session.js';

export interface NavItem {
  readonly path: string;
  readonly label: string;
  /** Any one of these scopes shows the item; empty = every logged-in user. */
  readonly scopes: readonly string[];
}

export const NAV: readonly NavItem[] = [
  { path: '/', label: 'Status', scopes: [] },
  { path: '/events', label: 'Events', scopes: ['events'] },
  { path: '/objects', label: 'Objects', scopes: ['objects'] },
  { path: '/device', label: 'Device', scopes: ['device_control'] },
  { path: '/overrides', label: 'OID overrides', scopes: ['objects'] },
  { path: '/settings', label: 'Settings', scopes: ['settings'] },
  { path: '/users', label: 'Users', scopes: ['settings', 'users'] },
  { path: '/restart', label: 'Restart', scopes: ['restart_services'] },
  { path: '/system', label: 'System', scopes: ['system_update'] },
];

export function mayOpen(item: NavItem, scopes: ReadonlySet<string>): boolean {
  return item.scopes.length === 0 || item.scopes.some((s) => scopes.has(s));
}

export interface LayoutProps {
  readonly title: string;
  readonly active: string;
  readonly instanceName: string;
  readonly session: WebSession | null;
  readonly children?: Child;
}

export function Layout(props: LayoutProps) {
  const { session } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · ${props.instanceName} · Vigil`}</title>
        <link rel="stylesheet" href={assetUrl('vigil.css')} />
        <script src={assetUrl('vigil.js')} defer></script>
      </head>
      <body data-csrf={session?.csrf ?? ''}>
        <header class="top">
          <a class="brand" href="/">
            <span class="brand-mark" aria-hidden="true"></span>
            <span class="brand-name">Vigil</span>
            <span class="brand-site">{props.instanceName}</span>
          </a>
          {session && (
            <form class="logout" method="post" action="/logout">
              <input type="hidden" name={CSRF_FIELD} value={session.csrf} />
              <span class="who">{session.login}</span>
              <button type="submit" class="link">
                Log out
              </button>
            </form>
          )}
        </header>
        {session && (
          <nav class="tabs" aria-label="Views">
            {NAV.filter((item) => mayOpen(item, session.principal.scopes)).map((item) => (
              <a
                href={item.path}
                class={item.path === props.active ? 'tab active' : 'tab'}
                aria-current={item.path === props.active ? 'page' : undefined}
              >
                {item.label}
              </a>
            ))}
          </nav>
        )}
        <main>{props.children}</main>
      </body>
    </html>
  );
}
