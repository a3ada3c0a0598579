/**
 * The same limited user on both edges: the page (session cookie, CSRF, form posts) and the API
 * (bearer token from POST /api/login), over the real parts of the web harness. OPERATOR holds
 * `events` and `objects`, the grant `device_control`, and sees receiver 1 only; the fixture puts
 * one device with a related object on each receiver, and account 3333 on both.
 */
import * as assert from 'uvu/assert';
import { OPERATOR, call, seedTwoReceivers, type CallOptions } from '../api/harness.js';
import { Browser, createWebHarness, type WebHarness } from '../web/web-harness.js';

export interface Parity {
  readonly h: WebHarness;
  /** The operator's page session. */
  readonly page: Browser;
  /** The operator's API token, from POST /api/login. */
  readonly token: string;
  api(method: string, path: string, options?: CallOptions): Promise<Response>;
}

export async function createParity(): Promise<Parity> {
  const h = await createWebHarness();
  await seedTwoReceivers(h.store, h.clock.now());

  return createParityLogins({ h });
}

/** Fresh logins of the operator on both edges (a new token picks up new grants). */
export async function createParityLogins({ h }: { h: WebHarness }): Promise<Parity> {
  const page = new Browser(h, '192.0.2.60');
  assert.is((await page.login(OPERATOR.login, OPERATOR.password)).status, 303, 'the operator logs in to the page');
  const login = await call(h, 'POST', '/api/login', {
    body: { login: OPERATOR.login, password: OPERATOR.password },
    address: '192.0.2.61',
  });
  assert.is(login.status, 200, 'the operator logs in to the API');
  const token = ((await login.json()) as { token: string }).token;
  return {
    h,
    page,
    token,
    api: (method, path, options = {}) => call(h, method, path, { token, ...options }),
  };
}
