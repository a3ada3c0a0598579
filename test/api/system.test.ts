/**
 * /api/system* over real HTTP on loopback (docs/backup.md "API"): a backup downloaded as a stream restores
 * onto another data dir; an upload with a wrong passphrase, a damaged file, too many bytes or too little
 * room is refused and stages nothing; the passphrase is never taken from the URL; only `system_update`
 * (a grant) opens any of it.
 */
import { createAdaptorServer } from '@hono/node-server';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../src/api/app.js';
import { applyPendingRestore } from '../../src/backup/apply-restore.js';
import { PENDING_DIR, stageRestore } from '../../src/backup/stage-restore.js';
import { silentLogger } from '../../src/core/logger.js';
import { Store } from '../../src/store/store.js';
import { RESTART_DELAY_MS } from '../../src/services/system-service.js';
import { ADMIN, START, TEXT, VIEWER, createHarness, expectResponse, type Harness } from './harness.js';
import { tempDir } from '../helpers/temp-dir.js';
import { alarmEvent } from './alarm-event.js';

const PASSPHRASE = 'correct horse battery staple';
const HEADER = 'X-Vigil-Backup-Passphrase';

let h: Harness;
let server: Server;
let base: string;
/** VIEWER holds `events` and, as a grant, `system_update` only. */
let granted: string;
/** ADMIN holds settings, users, events, objects: every record scope, no grant. */
let admin: string;

async function serveApp(app: ReturnType<typeof createApp>): Promise<void> {
  server = createAdaptorServer({ fetch: app.fetch }) as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test.before.each(async () => {
  h = await createHarness();
  await h.store.write.grants.set(VIEWER.id, ['system_update'], 'test');
  granted = await h.token(VIEWER.id);
  admin = await h.token(ADMIN.id);
  await serveApp(h.app);
});
test.after.each(async () => {
  (server as unknown as { closeAllConnections(): void }).closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
});

function get(path: string, token: string | null, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${path}`, { headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers } });
}

function upload(
  path: string,
  token: string | null,
  body: Uint8Array | null,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      'Content-Type': 'application/octet-stream',
      ...headers,
    },
    ...(body ? { body } : {}),
  });
}

/** Downloads a backup, reading the answer chunk by chunk as it arrives. */
async function download(query = ''): Promise<{ res: Response; bytes: Buffer; chunks: number }> {
  const res = await get(`/api/system/backup${query}`, granted, { [HEADER]: PASSPHRASE });
  assert.is(res.status, 200, 'the download starts');
  const parts: Buffer[] = [];
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parts.push(Buffer.from(chunk));
  return { res, bytes: Buffer.concat(parts), chunks: parts.length };
}

function dataDirLeftovers(): string[] {
  return readdirSync(h.dataDir).filter(
    (name) => name.startsWith('.restore') || name === PENDING_DIR || name.startsWith('.backup'),
  );
}

test('a backup downloaded as a stream restores onto another data dir with the same settings and users', async () => {
  await h.store.write.overrides.set({ matchKind: 'oid', matchValue: '1234', relatedOid: null, overrideOid: '9002' });
  const { res, bytes } = await download();
  assert.is(res.headers.get('content-type'), 'application/octet-stream');
  assert.is(res.headers.get('content-disposition'), 'attachment; filename="vigil-site-7-2026-01-01.vbk"');
  assert.is(res.headers.get('cache-control'), 'no-store');
  assert.is(res.headers.get('content-length'), null, 'streamed, not buffered to learn its length');
  assert.is(bytes.subarray(0, 8).toString('latin1'), 'VGLBKP01');
  assert.not.ok(bytes.includes(Buffer.from(h.settings.current().api.api_jwt_secret)), 'the secret is encrypted');
  assert.equal(dataDirLeftovers(), [], 'the snapshot is removed');

  const other = tempDir('vigil-restored-');
  try {
    writeFileSync(join(other.path, 'box.vbk'), bytes);
    const header = await stageRestore({
      dataDir: other.path,
      file: join(other.path, 'box.vbk'),
      passphrase: PASSPHRASE,
      newIdentity: false,
    });
    assert.is(header.instance_name, 'site-7');
    assert.is(header.app_version, '9.9.9-test');
    assert.is(header.journal, false);
    applyPendingRestore(other.path, silentLogger, START);
    const store = new Store(join(other.path, 'vigil.db'), silentLogger, undefined, { readonly: true });
    await store.start();
    try {
      const settings = JSON.parse(JSON.stringify(store.settings.load())) as {
        users: Array<{ login: string }>;
        api: { api_jwt_secret: string };
      };
      assert.equal(
        settings.users.map((u) => u.login),
        ['admin', 'operator', 'viewer'],
      );
      assert.is(settings.api.api_jwt_secret, h.settings.current().api.api_jwt_secret);
      assert.equal(store.grants.get(VIEWER.id), ['system_update']);
      assert.is(store.overrides.resolve({ account: '1234' }, null), '9002');
    } finally {
      await store.stop();
    }
  } finally {
    other.remove();
  }
});

test('?journal=1 puts the journal in the backup; a bad flag is 400', async () => {
  const { bytes } = await download('?journal=1');
  const other = tempDir('vigil-restored-');
  try {
    writeFileSync(join(other.path, 'box.vbk'), bytes);
    assert.is(
      (
        await stageRestore({
          dataDir: other.path,
          file: join(other.path, 'box.vbk'),
          passphrase: PASSPHRASE,
          newIdentity: false,
        })
      ).journal,
      true,
    );
  } finally {
    other.remove();
  }
  await expectResponse(
    await get('/api/system/backup?journal=yes', granted, { [HEADER]: PASSPHRASE }),
    400,
    'journal: must be 1 or 0',
  );
});

test('a caller hanging up mid-download stops the backup and removes its snapshot', async () => {
  // About 40 MB of journal: far more than loopback's socket buffers hold, so the writer must wait for the reader.
  const raw = randomBytes(2048);
  for (let batch = 0; batch < 20; batch++) {
    await h.store.write.events.append(
      Array.from({ length: 1000 }, (_, i) =>
        alarmEvent({ account: String(1000 + i), raw: raw.subarray(0, 1024 + ((batch * 1000 + i) % 1024)) }),
      ),
    );
  }
  const abort = new AbortController();
  const res = await fetch(`${base}/api/system/backup?journal=1`, {
    headers: { Authorization: `Bearer ${granted}`, [HEADER]: PASSPHRASE },
    signal: abort.signal,
  });
  assert.is(res.status, 200);
  const reader = res.body!.getReader();
  await reader.read();
  abort.abort();
  const deadline = Date.now() + 10_000;
  while (
    Date.now() < deadline &&
    !(h.logs.some((l) => l.includes('backup download failed')) && dataDirLeftovers().length === 0)
  ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(
    h.logs.some((l) => l.includes('backup download failed') && l.includes('cancelled')),
    'the backup stopped',
  );
  assert.equal(dataDirLeftovers(), [], 'its snapshot is removed');
});

test('a backup that cannot be made at all is 500 E_3, not a 200 with an empty file', async () => {
  const empty = tempDir('vigil-nodata-');
  try {
    const broken = createApp({ ...h.deps, system: { ...h.deps.system!, dataDir: empty.path } });
    const res = await broken.request(
      '/api/system/backup',
      { headers: { Authorization: `Bearer ${granted}`, [HEADER]: PASSPHRASE } },
      { incoming: { socket: { remoteAddress: '192.0.2.10' } } },
    );
    await expectResponse(res, 500, 'E_3');
    assert.ok(h.logs.some((l) => l.includes('backup download failed')));
  } finally {
    empty.remove();
  }
});

test('the passphrase is never read from the URL, and a short one is refused before anything is made', async () => {
  await expectResponse(
    await get(`/api/system/backup?passphrase=${encodeURIComponent(PASSPHRASE)}`, granted),
    400,
    'passphrase: unknown parameter',
  );
  await expectResponse(
    await get('/api/system/backup', granted),
    400,
    'BAD_PASSPHRASE: the passphrase must be at least 12 characters',
  );
  await expectResponse(
    await get('/api/system/backup', granted, { [HEADER]: 'short' }),
    400,
    'BAD_PASSPHRASE: the passphrase must be at least 12 characters',
  );
  assert.equal(dataDirLeftovers(), []);
  assert.not.ok(
    h.logs.some((line) => line.includes(PASSPHRASE)),
    'the passphrase is in no log line',
  );
});

test('an uploaded backup is checked whole and staged for the next start; GET /api/system shows it', async () => {
  const { bytes } = await download();
  const res = await upload('/api/system/restore', granted, bytes, { [HEADER]: PASSPHRASE });
  const body = (await res.json()) as Record<string, unknown>;
  assert.is(res.status, 200);
  assert.equal(body, {
    success: true,
    backup: {
      app_version: '9.9.9-test',
      schema_version: (body.backup as { schema_version: number }).schema_version,
      instance_id: '',
      instance_name: 'site-7',
      created_at: '2026-01-01T12:00:00.000Z',
      journal: false,
    },
    new_identity: false,
    applied_at: 'next start',
  });
  assert.ok(existsSync(join(h.dataDir, PENDING_DIR, 'vigil.db')));
  assert.equal(dataDirLeftovers(), [PENDING_DIR], 'the uploaded file is removed once staged');
  const system = (await (await get('/api/system', granted)).json()) as { restore_pending: unknown };
  assert.equal(system.restore_pending, body.backup);
});

test('a wrong passphrase, a damaged file, an empty body and a short passphrase are refused with their reason; nothing staged', async () => {
  const { bytes } = await download();
  await expectResponse(
    await upload('/api/system/restore', granted, bytes, { [HEADER]: 'not the right passphrase' }),
    400,
    'BAD_PASSPHRASE: wrong passphrase for this backup',
  );
  const damaged = Buffer.from(bytes);
  damaged[damaged.length - 40]! ^= 0x01;
  await expectResponse(
    await upload('/api/system/restore', granted, damaged, { [HEADER]: PASSPHRASE }),
    400,
    'BAD_BACKUP: the backup file is damaged or altered (authentication failed: truncated, corrupted or altered)',
  );
  const cut = await upload('/api/system/restore', granted, bytes.subarray(0, 20), { [HEADER]: PASSPHRASE });
  assert.is(cut.status, 400);
  assert.match(await cut.text(), /^BAD_BACKUP: /);
  await expectResponse(
    await upload('/api/system/restore', granted, null, { [HEADER]: PASSPHRASE }),
    400,
    'BAD_BACKUP: no backup file was sent',
  );
  await expectResponse(
    await upload('/api/system/restore', granted, bytes, { [HEADER]: 'short' }),
    400,
    'BAD_PASSPHRASE: the passphrase must be at least 12 characters',
  );
  assert.equal(dataDirLeftovers(), [], 'no staged restore, no uploaded file left');
  const system = (await (await get('/api/system', granted)).json()) as { restore_pending: unknown };
  assert.is(system.restore_pending, null);
});

test('an upload past the size bound is 413 and one that would leave the journal too little room is 507; nothing staged', async () => {
  const { bytes } = await download();
  const stop = async () => {
    (server as unknown as { closeAllConnections(): void }).closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  await stop();
  await serveApp(createApp({ ...h.deps, system: { ...h.deps.system!, uploadLimits: { maxBytes: 1024 } } }));
  await expectResponse(
    await upload('/api/system/restore', granted, bytes, { [HEADER]: PASSPHRASE }),
    413,
    'Payload Too Large',
  );
  // Without Content-Length (chunked): the service's own count refuses it.
  const chunked = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
  const res = await fetch(`${base}/api/system/restore`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${granted}`, [HEADER]: PASSPHRASE },
    body: chunked,
    duplex: 'half',
  } as RequestInit);
  await expectResponse(res, 413, 'Payload Too Large');
  await stop();
  await serveApp(createApp({ ...h.deps, system: { ...h.deps.system!, uploadLimits: { reserveBytes: 2 ** 60 } } }));
  await expectResponse(
    await upload('/api/system/restore', granted, bytes, { [HEADER]: PASSPHRASE }),
    507,
    'NO_SPACE: the data partition has too little free space to receive and stage this backup',
  );
  assert.equal(dataDirLeftovers(), []);
});

test('401 without a token, 403 with every record scope but no grant, on every system path; nothing made or staged', async () => {
  for (const [method, path] of [
    ['GET', '/api/system'],
    ['GET', '/api/system/backup'],
    ['POST', '/api/system/restore'],
    ['POST', '/api/system/restart'],
  ] as const) {
    const anonymous =
      method === 'GET'
        ? await get(path, null, { [HEADER]: PASSPHRASE })
        : await upload(path, null, Buffer.from('x'), { [HEADER]: PASSPHRASE });
    await expectResponse(anonymous, 401, 'NOT_LOGGED_IN');
    const refused =
      method === 'GET'
        ? await get(path, admin, { [HEADER]: PASSPHRASE })
        : await upload(path, admin, Buffer.from('x'), { [HEADER]: PASSPHRASE });
    await expectResponse(refused, 403, 'FORBIDDEN');
  }
  // An installer token minted with the scope (vigil token --scopes system_update) gets in.
  const installer = (await h.deps.tokens.issueToken({ sub: 'installer', scopes: ['system_update'], minutes: 5 })).token;
  assert.is((await get('/api/system', installer)).status, 200);
  assert.equal(dataDirLeftovers(), []);
  assert.is(h.stops.count, 0);
});

test('system_update is granted by an administrator and can never be written into a user record', async () => {
  const users = h.settings.publicView() as { users: Array<Record<string, unknown>> };
  const withScope = users.users.map((u) => (u.id === VIEWER.id ? { ...u, scopes: ['events', 'system_update'] } : u));
  const put = await fetch(`${base}/api/settings`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ users: withScope }),
  });
  assert.is(put.status, 400);
  assert.is(await put.text(), 'users[2].scopes[1]: must be one of "settings", "users", "events" or "objects"');
  assert.equal(h.settings.current().users.find((u) => u.id === VIEWER.id)!.scopes, ['events']);
  const grant = await fetch(`${base}/api/users/${ADMIN.id}/grants`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${admin}` },
    body: JSON.stringify({ scopes: ['system_update', 'device_control'] }),
  });
  await expectResponse(grant, 200, { user_id: ADMIN.id, scopes: ['device_control', 'system_update'] });
  // The admin's token predates the grant: still refused; a new login carries it.
  await expectResponse(await get('/api/system', admin), 403, 'FORBIDDEN');
  assert.is((await get('/api/system', await h.token(ADMIN.id))).status, 200);
});

test('GET /api/system reports what exists and, without A/B updates, no slots; the wrong method is 405 with Allow', async () => {
  h.health.report('last-run', 'system', 'ok', 'clean stop: stopped cleanly', {
    how: 'clean stop',
    at: START - 60_000,
    rebooted: false,
  });
  h.health.report('storage', 'storage', 'ok', null, { free_mib: 2048, total_mib: 4096, trouble_below_mib: 64 });
  await h.store.write.meta.set('instance_id', '6f1c2a4e-0000-4000-8000-000000000001');
  await expectResponse(await get('/api/system', granted), 200, {
    version: '9.9.9-test',
    instance_id: '6f1c2a4e-0000-4000-8000-000000000001',
    instance_name: 'site-7',
    started_at: new Date(START - 3_600_500).toISOString(),
    last_run: {
      detail: 'clean stop: stopped cleanly',
      how: 'clean stop',
      at: new Date(START - 60_000).toISOString(),
      rebooted: false,
    },
    data_free_mib: 2048,
    restore_pending: null,
    restart_available: true,
    // This harness has no A/B update facilities (test/api/system-update.test.ts has them).
    slots: null,
    update: null,
    rollback_unacknowledged: false,
    channel: null,
  });
  const head = await fetch(`${base}/api/system/backup`, {
    method: 'HEAD',
    headers: { Authorization: `Bearer ${granted}` },
  });
  assert.is(head.status, 405);
  assert.is(head.headers.get('allow'), 'GET');
  const put = await fetch(`${base}/api/system/restore`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${granted}` },
  });
  assert.is(put.status, 405);
  assert.is(put.headers.get('allow'), 'POST');
});

test('restart: the gateway is asked to stop once the answer is sent; refused within 3 minutes of the start', async () => {
  await expectResponse(await upload('/api/system/restart', granted, null), 200, { success: true });
  assert.is(h.stops.count, 0, 'not before the answer');
  await new Promise((resolve) => setTimeout(resolve, RESTART_DELAY_MS + 200));
  assert.is(h.stops.count, 1);

  const fresh = createApp({ ...h.deps, startedAt: h.clock.now() - 60_000 });
  const res = await fresh.request(
    '/api/system/restart',
    { method: 'POST', headers: { Authorization: `Bearer ${granted}` } },
    { incoming: { socket: { remoteAddress: '192.0.2.10' } } },
  );
  assert.is(res.status, 409);
  assert.is(res.headers.get('content-type'), TEXT);
  assert.is(res.headers.get('retry-after'), '120');
  assert.is(await res.text(), 'TOO_SOON: the gateway started less than 3 minutes ago; try again in 120 s');
  await new Promise((resolve) => setTimeout(resolve, RESTART_DELAY_MS + 200));
  assert.is(h.stops.count, 1);

  const { system: _without, ...rest } = h.deps;
  const unsupervised = createApp({ ...rest, system: { dataDir: h.dataDir, instanceId: () => null } });
  const off = await unsupervised.request(
    '/api/system/restart',
    { method: 'POST', headers: { Authorization: `Bearer ${granted}` } },
    { incoming: { socket: { remoteAddress: '192.0.2.10' } } },
  );
  assert.is(off.status, 503);
});

test.run();
