/**
 * `vigil serve` as a child process on loopback, the wait for its /health = 200 (bounded), and
 * its configuration through the API as an installer would do it.
 */
import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LOOPBACK, waitFor } from './net.js';

export const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

/** The node flags the shipped unit starts the gateway with (systemd/vigil.service ExecStart), for tests that measure it as shipped. */
export function unitNodeFlags(): string[] {
  const unit = readFileSync(fileURLToPath(new URL('../../../systemd/vigil.service', import.meta.url)), 'utf8');
  const exec = /^ExecStart=(\S+)((?:\s+--\S+)*)\s+\S+cli\.js serve/m.exec(unit);
  if (!exec) throw new Error('systemd/vigil.service: no ExecStart=node ... cli.js serve line');
  return exec[2]!
    .trim()
    .split(/\s+/)
    .filter((flag) => flag !== '');
}

export function serveChild(
  dataDir: string,
  httpPort: number,
  httpsPort = 0,
  stdio: StdioOptions = 'ignore',
): ChildProcess {
  return spawn(
    process.execPath,
    [
      CLI,
      'serve',
      '--data-dir',
      dataDir,
      '--http-port',
      String(httpPort),
      '--https-port',
      String(httpsPort),
      '--host',
      LOOPBACK,
    ],
    { stdio, env: { ...process.env, VIGIL_LOG_LEVEL: 'error' } },
  );
}

/** Resolves once GET /health answers 200; the error names the last answer seen. */
export async function waitHealthy(httpPort: number, timeoutMs = 60_000): Promise<void> {
  let last = '';
  await waitFor(
    async () => {
      try {
        const res = await fetch(`http://${LOOPBACK}:${httpPort}/health`);
        last = `${res.status} ${await res.text()}`;
        return res.status === 200;
      } catch (err) {
        last = String(err);
        return false;
      }
    },
    timeoutMs,
    50,
  ).catch(() => {
    throw new Error(`/health never 200; last answer: ${last}`);
  });
}

/**
 * Mints a token with `scopes` (`vigil token`, as on the box), PUTs `settings`, restarts the
 * services and waits for /health = 200 again. Throws, with the answer, when the settings are
 * refused or the restart fails. Returns the headers for further calls with that token.
 */
export async function applySettings(
  dataDir: string,
  httpPort: number,
  scopes: readonly string[],
  settings: unknown,
): Promise<Record<string, string>> {
  const token = spawnSync(process.execPath, [CLI, 'token', '--data-dir', dataDir, '--scopes', scopes.join(',')], {
    encoding: 'utf8',
  }).stdout.trim();
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const base = `http://${LOOPBACK}:${httpPort}`;
  const put = await fetch(`${base}/api/settings`, { method: 'PUT', headers, body: JSON.stringify(settings) });
  if (put.status !== 200) throw new Error(`PUT /api/settings answered ${put.status}: ${await put.text()}`);
  const restart = await fetch(`${base}/api/restart-services`, { headers });
  if (restart.status !== 200)
    throw new Error(`GET /api/restart-services answered ${restart.status}: ${await restart.text()}`);
  await waitHealthy(httpPort);
  return headers;
}
