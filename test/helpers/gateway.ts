/** A real Gateway on a data dir, its plain-HTTP API on a free loopback port, HTTPS off (tests of the whole process). */
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { Gateway, type GatewayOptions } from '../../src/main.js';
import { freePort } from './net.js';

export async function startGateway(
  dataDir: string,
  extra: Partial<GatewayOptions> = {},
): Promise<{ gateway: Gateway; base: string }> {
  const gateway = new Gateway({
    dataDir,
    httpPort: await freePort(),
    httpsPort: 0,
    host: '127.0.0.1',
    logger: silentLogger,
    ...extra,
  });
  await gateway.start();
  return { gateway, base: `http://127.0.0.1:${gateway.apiPorts().http}` };
}

/** POST /api/login as the contract shapes it. */
export function postLogin(base: string, login: string, password: string): Promise<Response> {
  return fetch(`${base}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login, password }),
  });
}

/** The token of a login that must succeed. */
export async function loginToken(base: string, login: string, password: string): Promise<string> {
  const res = await postLogin(base, login, password);
  assert.is(res.status, 200);
  return ((await res.json()) as { token: string }).token;
}
