/**
 * System updates on the System view in a real browser (Chromium via playwright-core) against a real
 * gateway booted "from slot A" (a fake rauc that hands `info` to the real tool; test/helpers/rauc-fixture.ts):
 * the slots are shown; a corrupted bundle is refused with the gateway's words; a good one is uploaded
 * through the page's script with its progress bar and installed; reboot now writes the reboot request;
 * a rollback shows on the Status and System views until it is acknowledged; the update channel's facts
 * and Check now (a channel nobody answers at: its error shown, nothing installed); no CSP violation on the way.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { readUpdateRecord, writeUpdateRecord } from '../../src/update/update-record.js';
import { corrupted, fakeBox, makeBundle, makeKeys, type FakeBox } from '../helpers/rauc-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';
import { logIn, startRig, type BrowserRig } from './browser-rig.js';

const fixtures = tempDir('vigil-web-bundles-');
let rig: BrowserRig;
let page: Page;
let box: FakeBox;
let good: string;
let bad: string;
const problems: string[] = [];

test.before(async () => {
  const keys = makeKeys(join(fixtures.path, 'keys'));
  good = makeBundle(fixtures.path, keys, { version: '99.0.0', payloadBytes: 300_000 });
  bad = corrupted(good);
  box = fakeBox(join(fixtures.path, 'box'));
  rig = await startRig({
    update: {
      rauc: { bin: box.rauc, extraArgs: [`--keyring=${keys.ca}`] },
      cmdlinePath: box.cmdline,
      bootEnvPath: box.bootEnv,
    },
  });
  await rig.gateway.store.write.grants.set(1, ['system_update'], 'test');
  page = await (await rig.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('dialog', (d) => void d.accept());
  await logIn(page, rig.base, 'admin', rig.adminPassword);
});
test.after(async () => {
  await rig.close();
  fixtures.remove();
});

const dataDir = () => join(rig.gateway.store.path, '..');

test('the System view shows both slots; a corrupted bundle is refused, a good one installed with progress', async () => {
  await page.goto(`${rig.base}/system`);
  assert.match((await page.textContent('[data-fact="running-slot"]')) ?? '', /^slot A, version .+, booted, good/);
  assert.match((await page.textContent('[data-fact="other-slot"]')) ?? '', 'version unknown, inactive, good');
  assert.is(await page.textContent('[data-fact="next-boot"]'), 'slot A');

  await page.setInputFiles('#update-form input[type=file]', bad);
  await page.click('#update-form button[type=submit]');
  await page.waitForSelector('#update-result.alert.error', { timeout: 20_000 });
  assert.match(
    (await page.textContent('#update-result')) ?? '',
    /^Refused \(400\): CORRUPTED: the bundle payload is corrupted.* Nothing was changed\.$/,
  );
  assert.not.ok(box.calls().some((c) => c.startsWith('install')));

  await page.setInputFiles('#update-form input[type=file]', good);
  await page.click('#update-form button[type=submit]');
  await page.waitForSelector('#update-result.alert.ok', { timeout: 20_000 });
  assert.match(
    (await page.textContent('#update-result')) ?? '',
    'Installed: version 99.0.0 in slot B. Reboot to start it',
  );
  assert.is(await page.getAttribute('#update-progress', 'value'), '100');
  await rig.shot(page, 'update-01-installed');

  await page.goto(`${rig.base}/system`);
  assert.match(
    (await page.textContent('[data-fact="other-slot"]')) ?? '',
    'version 99.0.0, inactive, good, on trial (not confirmed yet), 3 boot tries left',
  );
  assert.is(await page.textContent('[data-fact="next-boot"]'), 'slot B');
  assert.match(
    (await page.textContent('[data-fact="last-update"]')) ?? '',
    /→ 99\.0\.0 in slot B.*installed, waiting to be started and confirmed/,
  );
});

test('the update channel on the System view: none configured, then one nobody answers at, checked now', async () => {
  await page.goto(`${rig.base}/system`);
  assert.match(
    (await page.textContent('[data-fact="channel"]')) ?? '',
    /^No update channel: this box installs only bundles/,
  );
  const result = await rig.gateway.settings.update({
    updates: { channel_url: 'https://127.0.0.1:9/stable/channel.cms', window_start: '00:00', window_end: '00:00' },
  });
  assert.ok(result.ok, JSON.stringify(result));
  await page.goto(`${rig.base}/system`);
  assert.is(await page.textContent('[data-fact="channel-url"]'), 'https://127.0.0.1:9/stable/channel.cms');
  await page.click('[data-fact="channel"] button[type=submit]');
  await page.waitForSelector('[data-fact="channel-error"]', { timeout: 60_000 });
  assert.match(
    (await page.textContent('[data-fact="channel-error"]')) ?? '',
    /^UNREACHABLE: cannot reach 127\.0\.0\.1:9/,
  );
  assert.match((await page.textContent('.alert')) ?? '', /The channel check failed: UNREACHABLE/);
  await rig.shot(page, 'update-04-channel');
  assert.not.ok(box.calls().some((c) => c.startsWith('install https')));
});

test('reboot now, after the confirmation box, writes the reboot request', async () => {
  await page.goto(`${rig.base}/system`);
  await page.check('#updates input[name=confirm]');
  await page.click('#updates button.danger');
  await page.waitForSelector('text=The box is rebooting');
  const request = JSON.parse(readFileSync(join(dataDir(), 'system', 'reboot-request'), 'utf8')) as { reason: string };
  assert.is(request.reason, 'requested by user:1');
});

test('a rollback shows on the Status and System views until it is acknowledged', async () => {
  const install = readUpdateRecord(dataDir()).install!;
  writeUpdateRecord(dataDir(), {
    install: {
      ...install,
      outcome: 'rolled_back',
      reason: 'the box booted slot A again instead of B (version 99.0.0)',
      journaled: ['update_installed', 'update_rolled_back'],
    },
  });
  // The monitor reads the record every 5 s.
  await page.goto(`${rig.base}/`);
  for (let i = 0; i < 40 && !(await page.content()).includes('update rolled back'); i++) {
    await new Promise((r) => setTimeout(r, 250));
    await page.goto(`${rig.base}/`);
  }
  assert.match(await page.content(), 'update rolled back: the box booted slot A again instead of B (version 99.0.0)');
  await rig.shot(page, 'update-02-status-rollback');

  await page.goto(`${rig.base}/system`);
  assert.match((await page.textContent('[data-fact="rollback"]')) ?? '', 'returned to this version by itself');
  await page.click('[data-fact="rollback"] button');
  await page.waitForSelector('text=Rollback acknowledged.');
  assert.not.ok(await page.$('[data-fact="rollback"]'));
  await page.goto(`${rig.base}/`);
  assert.not.match(await page.content(), 'update rolled back');
  assert.ok(existsSync(join(dataDir(), 'update', 'state.json')));
  assert.equal(problems, [], 'no CSP violation or script error');
});

test.run();
