/**
 * `vigil status [--watch]`: the status view in a terminal (an SSH session on the box). It reads the
 * data dir read-only for the JWT secret and the listener ports, signs a short installer token (no
 * scope: GET /api/status needs none) and asks the running gateway over loopback, so the terminal
 * shows exactly what GET /api/status and the page show. With --watch it redraws in place.
 */
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { INSTALLER_SUBJECT, TokenService } from './auth/tokens.js';
import type { StatusBody } from './services/status-body.js';
import type { CliCommand } from './cli-args.js';
import { UsageError } from './core/usage-error.js';
import { describeError } from './core/errors.js';
import { silentLogger } from './core/logger.js';
import { isInitialised } from './init/first-start.js';
import type { Settings } from './settings/schema.js';
import { validateStoredSettings } from './settings/validate.js';
import { statusText } from './status-text.js';
import { Store } from './store/store.js';
import { storePath } from './store/store-path.js';

type StatusCommand = Extract<CliCommand, { command: 'status' }>;

async function readSettings(dataDir: string): Promise<Settings> {
  const notInitialised = new UsageError(`${dataDir} is not an initialised Vigil data dir (run 'vigil serve' once)`);
  const store = new Store(storePath(dataDir), silentLogger, undefined, { readonly: true });
  try {
    await store.start();
  } catch {
    throw notInitialised;
  }
  try {
    const raw = store.settings.load();
    const parsed = raw === null ? null : validateStoredSettings(raw);
    if (!parsed?.ok || !isInitialised(parsed.settings)) throw notInitialised;
    return parsed.settings;
  } finally {
    await store.stop();
  }
}

/** Loopback when the gateway listens on every address; else the address it is bound to. */
function hostOf(bind: string): string {
  if (bind === '0.0.0.0') return '127.0.0.1';
  if (bind === '::') return '[::1]';
  return bind.includes(':') ? `[${bind}]` : bind;
}

function getJson(url: string, token: string, ca: string | null): Promise<{ status: number; body: string }> {
  const headers = { authorization: `Bearer ${token}` };
  if (url.startsWith('https:')) {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(url, { headers, ...(ca ? { ca } : {}), timeout: 5000 }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', reject);
      req.end();
    });
  }
  return fetch(url, { headers, signal: AbortSignal.timeout(5000) }).then(async (res) => ({
    status: res.status,
    body: await res.text(),
  }));
}

export async function runStatus(command: StatusCommand, out: NodeJS.WriteStream = process.stdout): Promise<number> {
  const settings = await readSettings(command.dataDir);
  const secret = settings.api.api_jwt_secret;
  const tokens = new TokenService({ secret: () => secret, clock: { now: () => Date.now() } });
  const host = hostOf(settings.api.bind_address);
  const url = command.url ?? `http://${host}:${settings.api.api_http_port}`;
  let ca: string | null = null;
  if (url.startsWith('https:') && settings.api.public_key) {
    try {
      ca = readFileSync(settings.api.public_key, 'utf8');
    } catch {
      ca = null;
    }
  }

  async function once(): Promise<{ text: string; ok: boolean }> {
    try {
      const { token } = await tokens.issueToken({ sub: INSTALLER_SUBJECT, scopes: [], minutes: 1 });
      const res = await getJson(`${url.replace(/\/$/, '')}/api/status`, token, ca);
      if (res.status !== 200)
        return { text: `vigil status: ${url} answered ${res.status} ${res.body.slice(0, 80)}\n`, ok: false };
      return {
        text: statusText(JSON.parse(res.body) as StatusBody, { color: out.isTTY === true, now: Date.now() }),
        ok: true,
      };
    } catch (err) {
      return { text: `vigil status: gateway not reachable at ${url}: ${describeError(err)}\n`, ok: false };
    }
  }

  if (!command.watch) {
    const { text, ok } = await once();
    (ok ? out : process.stderr).write(text);
    return ok ? 0 : 1;
  }
  // Redraw in place: cursor home, each line cleared to its end, then the rest of the screen.
  const redraw = (text: string): void => {
    out.write(`\x1b[H${text.replace(/\n/g, '\x1b[K\n')}\x1b[J`);
  };
  out.write('\x1b[2J\x1b[?25l');
  let stopped = false;
  const stop = (): void => {
    stopped = true;
    out.write('\x1b[?25h\n');
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  while (!stopped) {
    const { text } = await once();
    if (stopped) break;
    redraw(`${text}\n(refreshing every ${command.intervalS} s; Ctrl-C to quit)\n`);
    await new Promise((resolve) => setTimeout(resolve, command.intervalS * 1000));
  }
  return 0;
}
