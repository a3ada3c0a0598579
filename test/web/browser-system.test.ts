/**
 * The System view in a real browser (Debian's Chromium via playwright-core) against a real gateway
 * (docs/web.md "System"): the facts of the box, a backup downloaded through the form, the same file
 * uploaded through the page's script with its progress bar and staged, a wrong passphrase refused with
 * the gateway's words and nothing staged, and no Content-Security-Policy violation on the way.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { PENDING_DIR } from '../../src/backup/stage-restore.js';
import { readVersion } from '../../src/version.js';
import { logIn, startRig, type BrowserRig } from './browser-rig.js';
import { tempDir } from '../helpers/temp-dir.js';

const PASSPHRASE = 'Mühle am Fluss, Schrank 7';

let rig: BrowserRig;
let page: Page;
const problems: string[] = [];

test.before(async () => {
  rig = await startRig();
  await rig.gateway.store.write.grants.set(1, ['system_update'], 'test');
  const context = await rig.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
  page.on('console', (m) => {
    // The refused upload's 400 is logged by the browser as a failed resource: expected, not a problem.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await logIn(page, rig.base, 'admin', rig.adminPassword);
});
test.after(async () => {
  await rig.close();
});

const dataDir = () => dirname(rig.gateway.store.path);

test('a backup downloaded from the System view is uploaded back through its script, with progress, and staged', async () => {
  await page.goto(`${rig.base}/system`);
  assert.is(await page.textContent('[data-fact="version"]'), readVersion());
  assert.is(await page.textContent('[data-fact="instance"]'), 'Riverside cabinet 7');
  assert.match((await page.textContent('[data-fact="restore-pending"]')) ?? '', 'No restore is staged.');
  await page.fill('#backup-form input[name=passphrase]', PASSPHRASE);
  await page.fill('#backup-form input[name=passphrase_again]', PASSPHRASE);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#backup-form button[type=submit]')]);
  assert.is(download.suggestedFilename(), `vigil-Riverside-cabinet-7-${new Date().toISOString().slice(0, 10)}.vbk`);
  const saved = join(tempDir('vigil-download-').path, 'box.vbk');
  await download.saveAs(saved);
  assert.is(readFileSync(saved).subarray(0, 8).toString('latin1'), 'VGLBKP01');
  await rig.shot(page, 'system-01-view');

  await page.goto(`${rig.base}/system`);
  await page.setInputFiles('#restore-form input[type=file]', saved);
  await page.fill('#restore-form input[name=restore_passphrase]', 'not the passphrase at all');
  await page.click('#restore-form button[type=submit]');
  await page.waitForSelector('#restore-result.alert.error');
  assert.is(
    await page.textContent('#restore-result'),
    'Refused (400): BAD_PASSPHRASE: wrong passphrase for this backup Nothing was staged.',
  );
  assert.not.ok(existsSync(join(dataDir(), PENDING_DIR)));

  // The non-ASCII passphrase travels as its UTF-8 bytes in the header and opens the file.
  await page.fill('#restore-form input[name=restore_passphrase]', PASSPHRASE);
  await page.click('#restore-form button[type=submit]');
  await page.waitForSelector('#restore-result.alert.ok');
  assert.match(
    (await page.textContent('#restore-result')) ?? '',
    'Checked and staged: the backup of Riverside cabinet 7',
  );
  assert.is(await page.getAttribute('#restore-progress', 'value'), '100');
  assert.ok(existsSync(join(dataDir(), PENDING_DIR, 'vigil.db')));
  await rig.shot(page, 'system-02-staged');
  await page.goto(`${rig.base}/system`);
  assert.match(
    (await page.textContent('[data-fact="restore-pending"]')) ?? '',
    'A restore is staged: the backup of Riverside cabinet 7',
  );
  assert.equal(problems, [], 'no script error, no CSP violation');
  rmSync(join(dataDir(), PENDING_DIR), { recursive: true, force: true });
});

test.run();
