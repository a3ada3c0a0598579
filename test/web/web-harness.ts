/**
 * The technician's page over the API harness's REAL parts (store, settings, tokens, throttle),
 * mounted exactly as the gateway mounts it (registerWeb on createApp's app). A small cookie jar
 * follows the session like a browser would.
 */
import { TypedBus } from '../../src/core/bus.js';
import { silentLogger } from '../../src/core/logger.js';
import { registerWeb } from '../../src/web/web-app.js';
import type { WebDeps } from '../../src/web/web-deps.js';
import { createHarness, type Harness } from '../api/harness.js';

export interface WebHarness extends Harness {
  readonly web: WebDeps;
  readonly actions: string[];
  readonly bus: TypedBus<{ stored: number }>;
}

export async function createWebHarness(): Promise<WebHarness> {
  const h = await createHarness();
  const actions: string[] = [];
  const bus = new TypedBus<{ stored: number }>(silentLogger);
  const web: WebDeps = {
    ...h.deps,
    store: h.store,
    settingsView: h.settings,
    onEventStored: (listener) => bus.on('stored', listener),
    journalAction: (login, action) => actions.push(`${login}: ${action}`),
  };
  registerWeb(h.app, web);
  return { ...h, web, actions, bus };
}

/** A browser-like client: keeps cookies, sends form posts with an Origin of the page. */
export class Browser {
  readonly cookies = new Map<string, string>();
  constructor(
    private readonly h: WebHarness,
    private readonly address = '192.0.2.50',
  ) {}

  async request(
    method: string,
    path: string,
    form?: Record<string, string | string[]>,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const all: Record<string, string> = { ...headers };
    if (this.cookies.size > 0) all.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (form) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(form)) for (const item of Array.isArray(v) ? v : [v]) params.append(k, item);
      body = params.toString();
      all['Content-Type'] ??= 'application/x-www-form-urlencoded';
      all.Origin ??= 'http://localhost';
    }
    const env = { incoming: { socket: { remoteAddress: this.address } } };
    const res = await this.h.app.request(
      `http://localhost${path}`,
      { method, headers: all, ...(body !== undefined ? { body } : {}) },
      env,
    );
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      if (/Max-Age=0/i.test(line) || value === '') this.cookies.delete(name!);
      else this.cookies.set(name!, value!);
    }
    return res;
  }

  get(path: string): Promise<Response> {
    return this.request('GET', path);
  }

  /** The CSRF token of the page at `path` (hidden field `_csrf`). */
  async csrf(path = '/'): Promise<string> {
    const html = await (await this.get(path)).text();
    const match = /name="_csrf" value="([^"]+)"/.exec(html);
    if (!match) throw new Error(`no CSRF field on ${path}`);
    return match[1]!;
  }

  async login(login: string, password: string): Promise<Response> {
    const token = await this.csrf('/login');
    return this.request('POST', '/login', { _csrf: token, login, password, next: '/' });
  }

  async post(path: string, form: Record<string, string | string[]>, from = path): Promise<Response> {
    return this.request('POST', path, { _csrf: await this.csrf(from), ...form });
  }
}
