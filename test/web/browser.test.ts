/**
 * End to end in a real browser (Debian's Chromium via playwright-core) against a real gateway:
 * login (wrong, throttled, right), the live tail showing a simulator's DC-09 event within 1 s,
 * a device command's multi-packet reply, a settings validation error beside its field with nothing
 * saved, a user limited to receiver 1 seeing nothing of receiver 2, CSRF and missing-cookie refusals.
 * A screenshot of each view is saved and its path printed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { resolveSimOptions } from '../../src/sim/sim-options.js';
import { Simulator } from '../../src/sim/simulator.js';
import { TECH, logIn, startRig, submitLogin, type BrowserRig } from './browser-rig.js';

let rig: BrowserRig;
const sims: Simulator[] = [];

test.before(async () => {
  rig = await startRig();
});
test.after(async () => {
  for (const s of sims) await s.stop();
  await rig.close();
});

/** One simulated device on `port` that stays connected; sends `events` events then idles. */
function device(port: number, uid: string, account: string, events: number, link = {}): Simulator {
  const sim = new Simulator(
    resolveSimOptions({
      port,
      devices: 1,
      ratePerDevice: events > 0 ? 50 : 0,
      ...(events > 0 ? { maxEvents: events } : {}),
      durationMs: 60_000,
      uidBase: uid,
      accountBase: account,
      link,
    }),
  );
  sims.push(sim);
  sim.start();
  return sim;
}

async function until(
  check: () => boolean | Promise<boolean>,
  ms: number,
  what: string | (() => string),
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A simulated device's connection and device-link counters, for a failure's message. */
function linkFigures(sim: Simulator): string {
  const { connects, disconnects, connected, hellosSent, welcomes, refusals, eventsSent, eventsAcked } = sim.stats;
  return JSON.stringify({ connects, disconnects, connected, hellosSent, welcomes, refusals, eventsSent, eventsAcked });
}

let admin: Page;

test('login: a wrong password is refused, five failures throttle the address, then the right one gets in', async () => {
  const context = await rig.browser.newContext({ viewport: { width: 1280, height: 900 } });
  admin = await context.newPage();
  await logIn(admin, rig.base, 'admin', 'wrong-password');
  assert.match((await admin.textContent('#login-error')) ?? '', 'Wrong login or password.');
  await rig.shot(admin, '01-login-wrong-password');
  // A failed login shows the form again: the next attempts are sent from it, without loading the page.
  for (let i = 0; i < 4; i++) await submitLogin(admin, 'admin', `wrong-${i}`);
  const fifthFailure = Date.now();
  await submitLogin(admin, 'admin', rig.adminPassword);
  if (new URL(admin.url()).pathname === '/login') {
    const refusal = (await admin.textContent('#login-error')) ?? '';
    assert.match(refusal, /Too many failed attempts from this address. Try again in \d+ s\./);
    await rig.shot(admin, '02-login-throttled');
    // Refused for 1 s after the fifth failure: the page says how long; then the right password gets in.
    const waitS = Number(/Try again in (\d+) s/.exec(refusal)![1]);
    await new Promise((r) => setTimeout(r, waitS * 1000 + 100));
    await submitLogin(admin, 'admin', rig.adminPassword);
  } else {
    // A busy machine took longer than the throttle's 1 s to send the sixth attempt: let in, rightly.
    assert.ok(Date.now() - fifthFailure > 1000, 'let in within the 1 s after the fifth failure');
  }
  assert.is(new URL(admin.url()).pathname, '/');
  assert.match((await admin.textContent('.who')) ?? '', 'admin');
  // The session cookie is out of reach of scripts and never sent cross-site.
  const cookie = (await context.cookies()).find((c) => c.name === 'vigil_session')!;
  assert.ok(cookie.httpOnly);
  assert.is(cookie.sameSite, 'Strict');
  assert.not.match(await admin.evaluate('document.cookie'), 'vigil_session');
});

test('status shows both receivers with their figures', async () => {
  await admin.goto(`${rig.base}/`);
  assert.ok(await admin.isVisible('[data-component="rx:tcp:1"]'));
  assert.ok(await admin.isVisible('[data-component="rx:tcp:2"]'));
  await rig.shot(admin, '03-status');
});

test('a DC-09 event sent by the simulator appears in the live tail within 1 s of its ACK', async () => {
  await admin.goto(`${rig.base}/events`);
  await admin.waitForSelector('#live-state.state-live');
  let ackedAt = 0;
  const sim = new Simulator(
    resolveSimOptions({
      port: rig.rx1,
      devices: 1,
      ratePerDevice: 50,
      maxEvents: 1,
      durationMs: 10_000,
      uidBase: 'AA0000000001',
      accountBase: '4711',
    }),
    { onAck: () => (ackedAt = Date.now()) },
  );
  sims.push(sim);
  sim.start();
  await admin.waitForSelector('#events tbody tr.fresh', { timeout: 20_000 });
  const shownAt = Date.now();
  assert.ok(ackedAt > 0, 'the event was ACKed');
  assert.ok(shownAt - ackedAt < 1000, `shown ${shownAt - ackedAt} ms after the ACK`);
  assert.match((await admin.textContent('#events tbody tr.fresh')) ?? '', '4711');
  await rig.shot(admin, '04-events-live');
});

test("a device command's multi-packet reply is shown packet by packet", async () => {
  const sim = device(rig.rx1, 'C0DE0000BEEF', '5150', 0, { replyPackets: 3, replyData: 'A1B2C3' });
  await until(() => sim.stats.welcomes >= 1, 30_000, 'device link up');
  await admin.goto(`${rig.base}/device`);
  await admin.fill('#f-partial_uid', 'BEEF');
  await admin.fill('#f-data', '0102');
  await admin.click('form[action="/device"] button[type=submit]');
  await admin.waitForSelector('#packets li:nth-child(3)');
  const packets = await admin.$$eval('#packets li', (items) => items.map((li) => li.textContent));
  assert.equal(packets, ['#1A1B2C3', '#2A1B2C3', '#3A1B2C3']);
  await admin.waitForSelector('.alert.ok');
  assert.match((await admin.textContent('.alert.ok')) ?? '', 'The device replied with 3 packets.');
  await rig.shot(admin, '05-device-reply');
  // An error code is explained in words.
  await admin.fill('#f-partial_uid', 'FFFF');
  await admin.click('form[action="/device"] button[type=submit]');
  await admin.waitForSelector('.alert.error');
  assert.match(
    (await admin.textContent('.alert.error')) ?? '',
    'NO_OBJECT: No device you may see has a UID ending in these digits',
  );
});

test('a settings validation error appears beside its field and nothing is saved', async () => {
  const before = JSON.stringify(rig.gateway.settings.current());
  await admin.goto(`${rig.base}/settings/tracker`);
  await admin.fill('#f-tracker_timeout_multiplier', '500');
  await Promise.all([admin.waitForNavigation(), admin.click('.settings-form button[type=submit]')]);
  const beside = admin.locator(
    'label:has(#f-tracker_timeout_multiplier) [data-error-for="tracker.timeout_multiplier"]',
  );
  assert.is(await beside.textContent(), 'must be between 1 and 100');
  assert.is(await admin.getAttribute('#f-tracker_timeout_multiplier', 'aria-invalid'), 'true');
  assert.match((await admin.textContent('#settings-errors')) ?? '', 'Nothing was saved.');
  assert.is(JSON.stringify(rig.gateway.settings.current()), before);
  await rig.shot(admin, '06-settings-error');
  // A valid change is saved and journaled.
  await admin.fill('#f-tracker_timeout_multiplier', '4');
  await Promise.all([admin.waitForNavigation(), admin.click('.settings-form button[type=submit]')]);
  assert.is(rig.gateway.settings.current().tracker.timeout_multiplier, 4);
  await admin.goto(`${rig.base}/settings/receivers`);
  await rig.shot(admin, '07-settings-receivers');
});

test('objects, overrides, users and restart views render for the administrator; a restart needs its confirmation', async () => {
  await admin.goto(`${rig.base}/objects`);
  assert.match((await admin.textContent('#objects')) ?? '', '4711');
  await rig.shot(admin, '08-objects');
  await admin.goto(`${rig.base}/overrides`);
  await admin.fill('#f-uid', 'C0DE0000BEEF');
  await admin.fill('#f-new_override_oid', '9001');
  await Promise.all([admin.waitForNavigation(), admin.click('form[action="/overrides"] button[type=submit]')]);
  assert.match((await admin.textContent('#overrides')) ?? '', '9001');
  await rig.shot(admin, '09-overrides');
  await admin.goto(`${rig.base}/users`);
  assert.match((await admin.textContent('#users')) ?? '', TECH.login);
  await rig.shot(admin, '10-users');
  await admin.goto(`${rig.base}/restart`);
  admin.once('dialog', (d) => void d.accept());
  await admin.check('input[name=confirm]');
  await Promise.all([admin.waitForNavigation(), admin.click('button.danger')]);
  assert.match((await admin.textContent('.alert.ok')) ?? '', 'Receivers and outputs restarted.');
  await rig.shot(admin, '11-restart');
  const events = rig.gateway.store.events.query({ receiverIds: null, limit: 50 }).items.map((e) => e.text ?? '');
  for (const action of [
    'admin: logged in to the page',
    'admin: control to partial UID BEEF',
    'admin: settings section tracker saved',
    'admin: OID override UID C0DE0000BEEF set to 9001',
    'admin: restarted receivers and outputs',
  ]) {
    assert.ok(
      events.some((t) => t.includes(action)),
      `journaled: ${action}`,
    );
  }
});

test('a user who sees only receiver 1 sees nothing of receiver 2 on any view', async () => {
  const south = device(rig.rx2, 'B0B000005678', '7722', 1);
  const north = device(rig.rx1, 'A0A000001234', '3311', 0);
  await until(
    () => south.stats.eventsAcked >= 1 && north.stats.welcomes >= 1 && south.stats.welcomes >= 1,
    30_000,
    () => `both devices connected (south ${linkFigures(south)}, north ${linkFigures(north)})`,
  );
  // A receiver-scoped component that names a device of receiver 2 (the kind the link registry reports):
  // its name carries the receiver after `rx:tcp:2:`, and the status must leave it out (#28.12).
  rig.gateway.health.report(
    'rx:tcp:2:links',
    'receiver',
    'degraded',
    'UID B0B000005678 account 7722: identity not proven',
  );
  const context = await rig.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const tech = await context.newPage();
  await logIn(tech, rig.base, TECH.login, TECH.password);
  const forbidden = ['7722', 'B0B000005678', 'rx:tcp:2', 'South DC-09'];
  const seen: Record<string, string> = {};
  for (const path of ['/', '/events', '/objects', '/overrides', '/device']) {
    await tech.goto(`${rig.base}${path}`);
    seen[path] = (await tech.content()) ?? '';
    for (const word of forbidden) assert.not.match(seen[path]!, word, `${path} shows ${word}`);
    await rig.shot(tech, `12-limited${path === '/' ? '-status' : path.replace('/', '-')}`);
  }
  assert.match(seen['/objects']!, '3311');
  assert.is((await tech.goto(`${rig.base}/settings/general`))!.status(), 403);
  assert.is((await tech.goto(`${rig.base}/users`))!.status(), 403);
  // The device on receiver 2 cannot be commanded: it does not exist for this user.
  await tech.goto(`${rig.base}/device`);
  await tech.fill('#f-partial_uid', '5678');
  await tech.fill('#f-data', '01');
  await tech.click('form[action="/device"] button[type=submit]');
  await tech.waitForSelector('.alert.error');
  assert.match((await tech.textContent('.alert.error')) ?? '', 'NO_OBJECT');
  assert.not.match(await tech.content(), 'B0B000005678');
  // The live tail: receiver 2's event never arrives, receiver 1's does.
  await tech.goto(`${rig.base}/events`);
  await tech.waitForSelector('#live-state.state-live');
  // Receiver 2's event is stored first; the tail sends in journal order, so once receiver 1's later event
  // is on the page, receiver 2's would have come before it had it been sent.
  const hidden = device(rig.rx2, 'B0B000009999', '7733', 1);
  await until(() => hidden.stats.eventsAcked >= 1, 30_000, "receiver 2's event stored");
  device(rig.rx1, 'A0A000009999', '3344', 1);
  await tech.waitForSelector('#events tbody tr.fresh:has-text("3344")', { timeout: 30_000 });
  const rows = await tech.$$eval('#events tbody tr.fresh', (trs) => trs.map((tr) => tr.textContent ?? ''));
  assert.not.ok(rows.some((r) => r.includes('7733')));
  await context.close();
  rig.gateway.health.remove('rx:tcp:2:links');
});

test('posts without the session cookie are 401; without or with a wrong CSRF token, or from another origin, 403', async () => {
  const session = (await admin.context().cookies()).find((c) => c.name === 'vigil_session')!.value;
  const form = (body: Record<string, string>) => new URLSearchParams(body).toString();
  const post = (path: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${rig.base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: form(body),
    });
  const restarts = rig.gateway.store.events
    .query({ receiverIds: null, limit: 100 })
    .items.filter((e) => (e.text ?? '').includes('restarted')).length;
  assert.is((await post('/restart', { confirm: 'yes' })).status, 401);
  assert.is((await post('/restart', { confirm: 'yes' }, { cookie: `vigil_session=${session}` })).status, 403);
  assert.is(
    (await post('/restart', { confirm: 'yes', _csrf: 'forged' }, { cookie: `vigil_session=${session}` })).status,
    403,
  );
  const csrf = (await admin.getAttribute('body', 'data-csrf'))!;
  assert.is(
    (
      await post(
        '/restart',
        { confirm: 'yes', _csrf: csrf },
        { cookie: `vigil_session=${session}`, origin: 'http://evil.example' },
      )
    ).status,
    403,
  );
  assert.is(
    (
      await post(
        '/settings/general',
        { 'general.instance_name': 'pwned', _csrf: 'x' },
        { cookie: `vigil_session=${session}` },
      )
    ).status,
    403,
  );
  assert.is(rig.gateway.settings.current().general.instance_name, 'Riverside cabinet 7');
  const after = rig.gateway.store.events
    .query({ receiverIds: null, limit: 100 })
    .items.filter((e) => (e.text ?? '').includes('restarted')).length;
  assert.is(after, restarts, 'no refused post restarted anything');
});

test('every view is under 100 KB and its first byte is printed; over 250 ms fails (median of 7, after one warm-up)', async () => {
  const session = (await admin.context().cookies()).find((c) => c.name === 'vigil_session')!.value;
  const lines: string[] = [];
  for (const path of [
    '/',
    '/events',
    '/objects',
    '/device',
    '/overrides',
    '/settings/general',
    '/settings/internal_events',
    '/settings/receivers',
    '/users',
    '/restart',
    '/login',
  ]) {
    const times: number[] = [];
    let bytes = 0;
    await (await fetch(`${rig.base}${path}`, { headers: { cookie: `vigil_session=${session}` } })).arrayBuffer();
    for (let i = 0; i < 7; i++) {
      const started = performance.now();
      const res = await fetch(`${rig.base}${path}`, { headers: { cookie: `vigil_session=${session}` } });
      times.push(performance.now() - started);
      bytes = (await res.arrayBuffer()).byteLength;
      assert.is(res.status, 200, path);
    }
    const median = times.sort((a, b) => a - b)[3]!;
    lines.push(`${path.padEnd(28)} ${String(bytes).padStart(6)} B  first byte ${median.toFixed(1)} ms`);
    assert.ok(bytes < 100 * 1024, `${path}: ${bytes} bytes`);
    // The goal is 50 ms (2-27 ms on an idle machine); a machine kept busy by other work adds its
    // scheduling to every request, so the test fails only far above it (docs/web.md).
    assert.ok(median < 250, `${path}: first byte after ${median.toFixed(1)} ms`);
  }
  console.log(lines.join('\n'));
});

test.run();
