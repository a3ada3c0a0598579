/**
 * The System view and /api/system* with the same limited user (issue #29, "A dead card is not a lost
 * configuration"). The operator holds `events`, `objects` and the grant `device_control`: both edges
 * refuse every system operation and stage nothing. Granted `system_update`, both edges reach the same
 * functions (systemReport, downloadBackup, restoreUpload): a backup from either edge restores through
 * the other, and both refuse the same way with the same words.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PENDING_DIR } from '../../src/backup/stage-restore.js';
import { expectResponse } from '../api/harness.js';
import { createParity, createParityLogins, type Parity } from './parity-fixture.js';

const PASSPHRASE = 'correct horse battery staple';
const HEADER = 'X-Vigil-Backup-Passphrase';

let p: Parity;
test.before.each(async () => {
  p = await createParity();
});
test.after.each(async () => {
  await p.h.close();
});

/** What the page's script sends: the file as the raw body, CSRF token and passphrase in headers. */
async function pageUpload(on: Parity, body: Uint8Array, passphrase: string, query = ''): Promise<Response> {
  const csrf = await on.page.csrf('/');
  const cookie = [...on.page.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const headers = {
    Cookie: cookie,
    'Content-Type': 'application/octet-stream',
    'X-CSRF-Token': csrf,
    [HEADER]: passphrase,
    Origin: 'http://localhost',
  };
  return on.h.app.request(
    `http://localhost/system/restore${query}`,
    { method: 'POST', headers, body },
    { incoming: { socket: { remoteAddress: '192.0.2.60' } } },
  );
}

const staged = () => existsSync(join(p.h.dataDir, PENDING_DIR));

test('without system_update: refused on both edges, no System tab, nothing made or staged', async () => {
  await expectResponse(await p.api('GET', '/api/system'), 403, 'FORBIDDEN');
  await expectResponse(
    await p.api('GET', '/api/system/backup', { headers: { [HEADER]: PASSPHRASE } }),
    403,
    'FORBIDDEN',
  );
  await expectResponse(
    await p.api('POST', '/api/system/restore', { raw: 'x', headers: { [HEADER]: PASSPHRASE } }),
    403,
    'FORBIDDEN',
  );
  assert.is((await p.page.get('/system')).status, 403);
  assert.is(
    (await p.page.post('/system/backup', { passphrase: PASSPHRASE, passphrase_again: PASSPHRASE }, '/')).status,
    403,
  );
  assert.is((await pageUpload(p, Buffer.from('VGLBKP01'), PASSPHRASE)).status, 403);
  assert.is((await p.page.post('/system/restart', { confirm: 'yes' }, '/')).status, 403);
  assert.not.match(await (await p.page.get('/')).text(), 'href="/system"');
  assert.not.ok(staged());
  assert.is(p.h.stops.count, 0);
  assert.equal(
    p.h.actions.filter((a) => a.includes('backup') || a.includes('restore') || a.includes('restarted')),
    [],
  );
});

test('with the grant: a backup from either edge restores through the other, the same answer on both', async () => {
  await p.h.store.write.grants.set(2, ['device_control', 'system_update'], 'test');
  const q = await createParityLogins(p);
  const view = await q.page.get('/system');
  assert.is(view.status, 200);
  const html = await view.text();
  assert.match(html, 'href="/system"');
  assert.match(html, '<dd data-fact="version">9.9.9-test</dd>');
  assert.match(html, '<dd data-fact="instance">site-7</dd>');
  assert.match(html, 'No restore is staged.');

  const fromPage = await q.page.post(
    '/system/backup',
    { passphrase: PASSPHRASE, passphrase_again: PASSPHRASE, journal: '1' },
    '/system',
  );
  assert.is(fromPage.status, 200);
  assert.is(fromPage.headers.get('content-disposition'), 'attachment; filename="vigil-site-7-2026-01-01.vbk"');
  const pageFile = Buffer.from(await fromPage.arrayBuffer());
  const fromApi = await q.api('GET', '/api/system/backup', { headers: { [HEADER]: PASSPHRASE } });
  assert.is(fromApi.status, 200);
  const apiFile = Buffer.from(await fromApi.arrayBuffer());

  const viaApi = await q.api('POST', '/api/system/restore', {
    raw: pageFile as unknown as string,
    headers: { [HEADER]: PASSPHRASE, 'Content-Type': 'application/octet-stream' },
  });
  const apiBody = (await viaApi.json()) as { backup: { journal: boolean } };
  assert.is(viaApi.status, 200);
  assert.is(apiBody.backup.journal, true, 'the page asked for the journal');
  const viaPage = await pageUpload(q, apiFile, PASSPHRASE);
  const pageBody = (await viaPage.json()) as { backup: { journal: boolean } };
  assert.is(viaPage.status, 200);
  assert.equal(
    { ...pageBody, backup: { ...pageBody.backup, journal: true } },
    apiBody,
    'the same answer shape on both edges',
  );
  assert.ok(staged());
  assert.match(await (await q.page.get('/system')).text(), 'A restore is staged: the backup of site-7');
  assert.equal(
    p.h.actions.filter((a) => a.includes('backup')),
    [
      'operator: downloaded a backup with the journal',
      'operator: staged a restore of the backup of site-7 made 2026-01-01T12:00:00.000Z',
    ],
  );
});

test('with the grant: a wrong passphrase and a short one are refused with the same words on both edges; nothing staged', async () => {
  await p.h.store.write.grants.set(2, ['system_update'], 'test');
  const q = await createParityLogins(p);
  const file = Buffer.from(
    await (await q.api('GET', '/api/system/backup', { headers: { [HEADER]: PASSPHRASE } })).arrayBuffer(),
  );
  const wrong = 'BAD_PASSPHRASE: wrong passphrase for this backup';
  await expectResponse(
    await q.api('POST', '/api/system/restore', {
      raw: file as unknown as string,
      headers: { [HEADER]: 'another passphrase', 'Content-Type': 'application/octet-stream' },
    }),
    400,
    wrong,
  );
  await expectResponse(await pageUpload(q, file, 'another passphrase'), 400, wrong);
  assert.not.ok(staged());

  await expectResponse(
    await q.api('GET', '/api/system/backup', { headers: { [HEADER]: 'short' } }),
    400,
    'BAD_PASSPHRASE: the passphrase must be at least 12 characters',
  );
  const short = await q.page.post('/system/backup', { passphrase: 'short', passphrase_again: 'short' }, '/system');
  assert.is(short.status, 400);
  assert.match(await short.text(), 'the passphrase must be at least 12 characters');
  const differ = await q.page.post(
    '/system/backup',
    { passphrase: PASSPHRASE, passphrase_again: `${PASSPHRASE}!` },
    '/system',
  );
  assert.is(differ.status, 400);
  assert.match(await differ.text(), 'the two passphrases differ');
  assert.equal(
    p.h.actions.filter((a) => a.includes('downloaded')),
    [],
  );
});

test('the page refuses a multipart upload before reading it, and a raw upload without the CSRF header', async () => {
  await p.h.store.write.grants.set(2, ['system_update'], 'test');
  const q = await createParityLogins(p);
  const multipart = await q.page.request(
    'POST',
    '/system/restore',
    { file: 'x'.repeat(100) },
    { 'Content-Type': 'multipart/form-data; boundary=x' },
  );
  assert.is(multipart.status, 415);
  assert.match(await multipart.text(), 'needs this page');
  const cookie = [...q.page.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const noCsrf = await q.h.app.request('http://localhost/system/restore', {
    method: 'POST',
    headers: {
      Cookie: cookie,
      'Content-Type': 'application/octet-stream',
      [HEADER]: PASSPHRASE,
      Origin: 'http://localhost',
    },
    body: 'VGLBKP01',
  });
  assert.is(noCsrf.status, 403);
  assert.not.ok(staged());
});

test('restart: both edges call restartGateway; the page needs the confirmation box', async () => {
  await p.h.store.write.grants.set(2, ['system_update'], 'test');
  const q = await createParityLogins(p);
  assert.is((await q.page.post('/system/restart', {}, '/system')).status, 400);
  const page = await q.page.post('/system/restart', { confirm: 'yes' }, '/system');
  assert.is(page.status, 200);
  assert.match(await page.text(), 'The gateway is restarting.');
  await expectResponse(await q.api('POST', '/api/system/restart'), 200, { success: true });
  await new Promise((resolve) => setTimeout(resolve, 800));
  assert.is(p.h.stops.count, 2);
  assert.ok(p.h.actions.includes('operator: restarted the gateway'));
});

test('system updates: refused on both edges without the grant; with it, the same answer where updates are not available', async () => {
  const cookie = () => [...p.page.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const pageBundle = async (): Promise<Response> =>
    p.h.app.request(
      'http://localhost/system/update',
      {
        method: 'POST',
        headers: {
          Cookie: cookie(),
          'Content-Type': 'application/octet-stream',
          'X-CSRF-Token': await p.page.csrf('/'),
          Origin: 'http://localhost',
        },
        body: Buffer.from('hsqs'),
      },
      { incoming: { socket: { remoteAddress: '192.0.2.60' } } },
    );
  await expectResponse(await p.api('POST', '/api/system/update', { raw: 'hsqs' }), 403, 'FORBIDDEN');
  await expectResponse(await p.api('POST', '/api/system/reboot'), 403, 'FORBIDDEN');
  await expectResponse(await p.api('POST', '/api/system/update/acknowledge'), 403, 'FORBIDDEN');
  assert.is((await pageBundle()).status, 403);
  assert.is((await p.page.post('/system/reboot', { confirm: 'yes' }, '/')).status, 403);
  assert.is((await p.page.post('/system/update/acknowledge', {}, '/')).status, 403);

  await p.h.store.write.grants.set(2, ['device_control', 'system_update'], 'test');
  p = await createParityLogins(p);
  const unavailable = 'UPDATE_UNAVAILABLE: system updates are not available on this system (no A/B slots or no RAUC)';
  await expectResponse(await p.api('POST', '/api/system/update', { raw: 'hsqs' }), 503, unavailable);
  const fromPage = await pageBundle();
  assert.equal([fromPage.status, await fromPage.text()], [503, unavailable]);
  assert.is((await p.page.post('/system/reboot', { confirm: 'yes' }, '/')).status, 503);
  assert.match(await (await p.page.get('/system')).text(), 'Not available on this system');
});

test.run();
