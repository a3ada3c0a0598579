/**
 * Fuzz of the management API against a running gateway (`vigil serve` as a child process on
 * 127.0.0.1): 20,000 random and mutated requests, every endpoint, with and without tokens. Valid
 * requests are mutated at every field (a leaf replaced by a hostile value, removed, an unknown key
 * added, the container swapped), the raw JSON is cut, flipped and padded, query strings and path
 * parameters are fuzzed, methods and Authorization headers vary.
 *   - no 500, no dropped connection, the process still runs at the end and /health is 200;
 *   - no change to the settings from a rejected PUT /api/settings (every settings write goes through
 *     one sequential lane; after each rejection the settings read back equal the last accepted ones);
 *   - `PRAGMA integrity_check` is ok on the store afterwards.
 * Loopback only: the value pool holds no address but 127.0.0.1, tokens never carry restart_services
 * (fuzzed receiver/output settings are never started), and every loop is bounded in count and time.
 * The seed is printed on failure (VIGIL_FUZZ_SEED replays it).
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CLI, serveChild, waitHealthy } from '../helpers/gateway-process.js';
import { LOOPBACK, freePort } from '../helpers/net.js';
import { prng } from '../helpers/prng.js';
import { tempDir } from '../helpers/temp-dir.js';

const TOTAL = Number(process.env.VIGIL_FUZZ_TOTAL ?? 20_000);
const LANES = 8;
/**
 * A bound on the loop, not the expected time: on an idle 2-core machine the 20,000 requests take
 * about 30 s; on a machine loaded far beyond its cores a request waits ≈30 ms for the CPU and the
 * bound ends the loop first (at least a quarter must have been sent).
 */
const DEADLINE_MS = 200_000;
const SEED = Number(process.env.VIGIL_FUZZ_SEED ?? Date.now() % 1_000_000);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Request {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
  readonly headers: Record<string, string>;
}

const random = prng(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const chance = (p: number): boolean => random() < p;

/** Hostile and boundary values; the only address in it is loopback. */
const POOL: readonly Json[] = [
  null,
  true,
  false,
  0,
  -1,
  1,
  2,
  3,
  65535,
  65536,
  2 ** 31,
  2 ** 53,
  -(2 ** 53),
  1.5,
  1e308,
  -0,
  '',
  ' ',
  'x',
  '0',
  '00',
  'FF',
  'zz',
  '1234',
  'ABCDEF0123456789',
  'A'.repeat(33),
  'é',
  '\u0000',
  '\u0007bell',
  'line\nbreak',
  '********',
  '127.0.0.1',
  '::1',
  '/dev/zero',
  '/dev/null',
  '/etc/passwd',
  '/tmp',
  '../../etc',
  '%00',
  '<script>',
  'x'.repeat(300),
  'z'.repeat(5000),
  '1e3',
  '-5',
  'true',
  'null',
  'SIA-DC09',
  'MLR2',
  'settings',
  'restart_services',
  [],
  [1],
  ['x'],
  [null],
  [[[[]]]],
  {},
  { a: 1 },
  { all: true, custom: [] },
  { all: false, custom: [99] },
];

/** Valid bodies per endpoint (the gateway's defaults, loopback targets, no restart_services). */
function validSettings(): Json[] {
  return [
    { general: { instance_name: 'fuzz', synchronize_device_time_interval: 60 } },
    {
      tracker: {
        timeout_multiplier: 3,
        sms_timeout_multiplier: 2,
        timeout_tolerance: 60,
        sms_timeout_tolerance: 600,
        event_count_for_restore: 1,
        event_count_for_restore_sms: 1,
      },
    },
    { database: { enabled: false, remove_lost_objects_age: 30, remove_events_age: 90, device_session_log_count: 10 } },
    { device_status_output: { enabled: false, port: 10010, encryption_enabled: false } },
    { ignorable_startup_events: [{ event_code: '3A1', group_no: '00', zone_no: '000' }] },
    {
      receivers: {
        tcp_receivers: [{ id: 1, name: 'rx', port: 10001, bind_address: '127.0.0.1', time_window_past_s: 40 }],
        udp_receivers: [],
      },
    },
    {
      outputs: [
        {
          id: 1,
          name: 'out',
          type: 1,
          protocol: 'MLR2',
          identificator: '127.0.0.1:9',
          oid: 31,
          receiver_number: 1,
          line_number: 1,
          enabled: false,
          filters: { receivers: [], event_classes: [] },
        },
      ],
    },
    {
      users: [
        {
          id: 1,
          login: 'admin',
          token_time: 60,
          scopes: ['settings', 'users', 'events', 'objects'],
          visible_receivers: { all: true, custom: [] },
        },
      ],
    },
    { api: { api_port: 8443, api_http_port: 8080 } },
  ];
}

const BODIES: Record<string, () => Json[]> = {
  'PUT /api/settings': validSettings,
  'POST /api/login': () => [{ login: 'admin', password: 'not-the-password' }],
  'POST /api/control-device': () => [
    { partial_uid: 'C3D4', request_id: 'r1', data: '0102A0', cloud_access_code: '123456', response_required: false },
  ],
  'POST /api/config-device': () => [{ partial_uid: 'C3D4', request_id: 'r2', data: 'A0B1', response_required: false }],
  'PUT /api/oid-override': (): Json[] => [
    { uid: 'A1B2C3', related_oid: '0042', new_override_oid: '9001' },
    { oid: '1234', new_override_oid: '12' },
  ],
  'PUT /api/users/1/grants': () => [{ scopes: ['device_control'] }],
  'POST /login': () => [],
};

const GETS = [
  '/health',
  '/api/status',
  '/api/settings',
  '/api/serial-ports',
  '/api/events',
  '/api/objects',
  '/api/users/1/grants',
  '/',
  '/login',
  '/assets/app.css',
];
const QUERY_KEYS = ['limit', 'cursor', 'receiver', 'account', 'code', 'from', 'to', 'acount', 'state'];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** Every path to a leaf (and to each container) of a JSON value. */
function paths(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(value)) for (const [i, v] of value.entries()) out.push(...paths(v, [...prefix, i]));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  return out;
}

function mutate(value: Json): Json {
  const copy = structuredClone(value);
  const targets = paths(copy).filter((p) => p.length > 0);
  if (targets.length === 0) return pick(POOL);
  const path = pick(targets);
  let parent: Json = copy;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, Json>)[key]!;
  const last = path[path.length - 1]!;
  const holder = parent as Record<string | number, Json>;
  const how = random();
  if (how < 0.7) holder[last] = pick(POOL);
  else if (how < 0.8) delete holder[last];
  else if (how < 0.9) holder[typeof last === 'number' ? last + 1 : `${last}_x`] = pick(POOL);
  else holder[last] = [holder[last] ?? null];
  return copy;
}

function rawMutation(text: string): string {
  const how = random();
  if (how < 0.25) return text.slice(0, Math.floor(random() * text.length));
  if (how < 0.5) {
    const at = Math.floor(random() * Math.max(1, text.length));
    return text.slice(0, at) + String.fromCharCode(Math.floor(random() * 256)) + text.slice(at + 1);
  }
  // Nested 10,000 levels deep, inside a section: within the 64 KiB body limit.
  if (how < 0.6) return `{"general":{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
  if (how < 0.7) return `{"tracker":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`;
  if (how < 0.8) return text + text;
  if (how < 0.9) return '\u00ff\u00fe' + text;
  return pick([
    '',
    'null',
    '[]',
    '"x"',
    '{',
    '}',
    '{"":{}}',
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{}}}',
  ]);
}

function query(): string {
  const parts: string[] = [];
  const n = Math.floor(random() * 4);
  for (let i = 0; i < n; i++) {
    const value = pick(POOL);
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    parts.push(`${pick(QUERY_KEYS)}=${chance(0.7) ? encodeURIComponent(text) : text.replace(/[#\s]/g, '')}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

interface Tokens {
  readonly good: string;
  readonly narrow: string;
}

function authHeader(tokens: Tokens): Record<string, string> {
  const how = random();
  if (how < 0.55) return { Authorization: `Bearer ${tokens.good}` };
  if (how < 0.65) return { Authorization: `Bearer ${tokens.narrow}` };
  if (how < 0.75) return {};
  if (how < 0.8) return { Authorization: `Bearer ${tokens.good.slice(0, -3)}abc` };
  if (how < 0.85) return { Authorization: 'Bearer e30.e30.' };
  if (how < 0.9) return { Authorization: `Basic ${Buffer.from('admin:x').toString('base64')}` };
  if (how < 0.95) return { Authorization: `bearer ${tokens.good}` };
  return { Authorization: `Bearer ${'a'.repeat(9000)}` };
}

/** One request: mostly a mutated valid one, sometimes anything at all. */
function nextRequest(tokens: Tokens, settingsOnly: boolean): Request {
  const headers = {
    'content-type': chance(0.9) ? 'application/json' : pick(['text/plain', 'application/x-www-form-urlencoded', '']),
    ...authHeader(tokens),
  };
  if (settingsOnly) {
    const body = pick(validSettings());
    const text = chance(0.85) ? JSON.stringify(chance(0.1) ? body : mutate(body)) : rawMutation(JSON.stringify(body));
    return { method: 'PUT', path: '/api/settings', body: text, headers };
  }
  const kind = random();
  if (kind < 0.35) {
    const path = pick(GETS);
    const id = chance(0.2) ? encodeURIComponent(String(pick(POOL))) : '1';
    return { method: chance(0.85) ? 'GET' : 'HEAD', path: path.replace('/1/', `/${id}/`) + query(), headers };
  }
  if (kind < 0.9) {
    const key = pick(Object.keys(BODIES).filter((k) => k !== 'PUT /api/settings'));
    const [method, rawPath] = key.split(' ') as [string, string];
    const path =
      rawPath.includes('/users/') && chance(0.3)
        ? `/api/users/${encodeURIComponent(String(pick(POOL)))}/grants`
        : rawPath;
    if (key === 'POST /login') {
      const form = `login=${encodeURIComponent(String(pick(POOL)))}&password=${encodeURIComponent(String(pick(POOL)))}&next=${encodeURIComponent(String(pick(POOL)))}`;
      return { method, path, body: form, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } };
    }
    const base = pick(BODIES[key]!());
    const text = chance(0.8) ? JSON.stringify(chance(0.1) ? base : mutate(base)) : rawMutation(JSON.stringify(base));
    return { method, path, body: text, headers };
  }
  // Anything: a random method on a random known or unknown path (never restart-services with its scope: tokens lack it).
  const path = pick([
    ...GETS,
    ...Object.keys(BODIES).map((k) => k.split(' ')[1]!),
    '/api/restart-services',
    '/api/nothing',
    '/api/settings/',
    '//api/status',
    '/api/../api/status',
  ]);
  const method = pick(METHODS);
  return { method, path, ...(method === 'GET' || method === 'HEAD' ? {} : { body: rawMutation('{"a":1}') }), headers };
}

function cliToken(dataDir: string, scopes: string[]): string {
  return execFileSync(
    process.execPath,
    [CLI, 'token', '--data-dir', dataDir, '--scopes', scopes.join(','), '--minutes', '30'],
    { encoding: 'utf8' },
  ).trim();
}

test(`${TOTAL} random and mutated API requests: no 500, no crash, no change from a rejected settings update, store intact (seed ${SEED})`, async () => {
  const dir = tempDir('vigil-api-fuzz-');
  const port = await freePort();
  let child: ChildProcess | null = serveChild(dir.path, port);
  const exits: string[] = [];
  child.on('exit', (code, signal) => exits.push(`exit ${code} ${signal}`));
  const base = `http://${LOOPBACK}:${port}`;
  const started = Date.now();
  try {
    await waitHealthy(port);
    const tokens: Tokens = {
      good: cliToken(dir.path, ['settings', 'users', 'events', 'objects', 'device_control', 'omit_mpass']),
      narrow: cliToken(dir.path, ['events']),
    };
    const readSettings = async (): Promise<string> => {
      const res = await fetch(`${base}/api/settings`, { headers: { Authorization: `Bearer ${tokens.good}` } });
      assert.is(res.status, 200, 'GET /api/settings with the fuzz token');
      return res.text();
    };
    let accepted = await readSettings();
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    let sent = 0;
    let accepts = 0;

    const cost = new Map<string, { n: number; ms: number }>();
    const send = async (request: Request): Promise<Response | null> => {
      const t0 = Date.now();
      const kindKey = `${request.method} ${request.path.split('?')[0]}`;
      try {
        const res = await fetch(base + request.path, {
          method: request.method,
          headers: request.headers,
          ...(request.body !== undefined ? { body: request.body } : {}),
          redirect: 'manual',
        });
        await res.arrayBuffer();
        const c = cost.get(kindKey) ?? { n: 0, ms: 0 };
        c.n++;
        c.ms += Date.now() - t0;
        cost.set(kindKey, c);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500 && res.status !== 503)
          failures.push(`${res.status} ${request.method} ${request.path} ${request.body?.slice(0, 200) ?? ''}`);
        return res;
      } catch (err) {
        failures.push(`no answer (${String(err)}) to ${request.method} ${request.path}`);
        return null;
      }
    };

    const lane = async (settingsLane: boolean): Promise<void> => {
      while (sent < TOTAL && Date.now() - started < DEADLINE_MS && failures.length < 20) {
        sent++;
        const request = nextRequest(tokens, settingsLane);
        const res = await send(request);
        if (!settingsLane || !res) continue;
        const now = await readSettings();
        if (res.status === 200) {
          accepts++;
          accepted = now;
        } else if (now !== accepted) {
          failures.push(
            `rejected (${res.status}) PUT /api/settings changed the settings: ${request.body?.slice(0, 300)}`,
          );
          accepted = now;
        }
      }
    };
    await Promise.all([lane(true), ...Array.from({ length: LANES - 1 }, () => lane(false))]);
    const elapsed = Date.now() - started;
    const summary = [...statuses.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([s, n]) => `${s}:${n}`)
      .join(' ');
    if (process.env.VIGIL_FUZZ_COSTS) {
      for (const [k, c] of [...cost.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12))
        process.stdout.write(`[api-fuzz] ${k}: ${c.n} x ${(c.ms / c.n).toFixed(1)} ms\n`);
    }
    process.stdout.write(
      `[api-fuzz] seed ${SEED}: ${sent} requests in ${elapsed} ms (${accepts} settings updates accepted); ${summary}\n`,
    );

    assert.equal(failures, [], `seed ${SEED}`);
    // A busy machine sends fewer within the bound; a quarter of the requests is still a real fuzz.
    assert.ok(sent >= TOTAL / 4, `${sent} of ${TOTAL} requests sent within ${DEADLINE_MS} ms (seed ${SEED})`);
    assert.equal(exits, [], 'the gateway is still running');
    assert.is((await fetch(`${base}/health`)).status, 200);
    const share = sent / TOTAL;
    assert.ok(
      (statuses.get(400) ?? 0) > 1000 * share &&
        (statuses.get(200) ?? 0) > 1000 * share &&
        (statuses.get(401) ?? 0) > 500 * share,
      `a spread of answers: ${summary}`,
    );
  } finally {
    if (child && child.exitCode === null) {
      const ended = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await ended;
    }
    child = null;
  }
  const db = new BetterSqlite3(join(dir.path, 'vigil.db'), { readonly: true });
  try {
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
  } finally {
    db.close();
    dir.remove();
  }
});

test.run();
