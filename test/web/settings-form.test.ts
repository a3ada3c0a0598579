/**
 * The settings forms: the shape walked from the schema, a posted form read back into the partial
 * update PUT /api/settings would receive, and that update judged by the real SettingsService
 * (through the page, over app.request): errors beside their fields, nothing saved.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readSection, errorsByPath } from '../../src/web/settings-form.js';
import { sectionShapes } from '../../src/web/settings-shape.js';
import { ADMIN } from '../api/harness.js';
import { Browser, createWebHarness, type WebHarness } from './web-harness.js';

const shapes = new Map(sectionShapes().map((e) => [e.key, e.shape]));

test("every section (the contract's, then Vigil's own) has a form, in the document order", () => {
  assert.equal(
    [...shapes.keys()],
    [
      'admission',
      'api',
      'database',
      'device_status_output',
      'general',
      'hw',
      'ignorable_startup_events',
      'internal_events',
      'outputs',
      'receivers',
      'tracker',
      'updates',
      'users',
    ],
  );
  const tracker = shapes.get('tracker')!;
  assert.is(tracker.k, 'object');
  const users = shapes.get('users')!;
  assert.ok(users.k === 'array' && users.item.k === 'object');
  const scopes =
    users.k === 'array' && users.item.k === 'object' ? users.item.entries.find((e) => e.key === 'scopes')!.shape : null;
  assert.equal(scopes, { k: 'array', item: { k: 'choice', options: ['settings', 'users', 'events', 'objects'] } });
});

test('a form is read back as typed: numbers, booleans, lists; removed entries dropped, blank new entries ignored, empty secrets kept', () => {
  const value = readSection(
    shapes.get('receivers')!,
    {
      'receivers.tcp_receivers[0].id': '1',
      'receivers.tcp_receivers[0].name': 'North',
      'receivers.tcp_receivers[0].port': '10001',
      'receivers.tcp_receivers[0].encryption_password': '',
      'receivers.tcp_receivers[0].require_encryption': 'true',
      'receivers.tcp_receivers[1].id': '2',
      'receivers.tcp_receivers[1].name': 'Old',
      'receivers.tcp_receivers[1].port': '10002',
      'receivers.tcp_receivers[1]._remove': 'on',
      'receivers.tcp_receivers[2]._new': '1',
      'receivers.tcp_receivers[2].id': '',
      'receivers.tcp_receivers[2].name': '',
      'receivers.tcp_receivers[2].port': '',
      'receivers.udp_receivers[0]._new': '1',
      'receivers.udp_receivers[0].id': '5',
      'receivers.udp_receivers[0].name': 'UDP',
      'receivers.udp_receivers[0].port': 'abc',
    },
    'receivers',
  );
  assert.equal(value, {
    tcp_receivers: [{ id: 1, name: 'North', port: 10001, require_encryption: true }],
    udp_receivers: [{ id: 5, name: 'UDP', port: 'abc' }],
    com_receivers: [],
    modem_receivers: [],
  });
  const users = readSection(
    shapes.get('users')!,
    {
      'users[0].id': '1',
      'users[0].login': 'admin',
      'users[0].password': '',
      'users[0].token_time': '60',
      'users[0].scopes': ['', 'settings', 'events'],
      'users[0].visible_receivers.all': 'false',
      'users[0].visible_receivers.custom': '1, 2',
    },
    'users',
  );
  assert.equal(users, [
    {
      id: 1,
      login: 'admin',
      token_time: 60,
      scopes: ['settings', 'events'],
      visible_receivers: { all: false, custom: [1, 2] },
    },
  ]);
  // A section field emptied by hand is sent as "" for the schema to judge, not silently kept.
  assert.equal(
    readSection(
      shapes.get('general')!,
      { 'general.instance_name': '', 'general.synchronize_device_time_interval': '5' },
      'general',
    ),
    { instance_name: '', synchronize_device_time_interval: 5 },
  );
});

test('validation lines are keyed by the field path they name', () => {
  const map = errorsByPath(['users[1].login: must not be empty', 'users[1].login: must be unique', 'users: too many']);
  assert.equal(
    [...map],
    [
      ['users[1].login', ['must not be empty', 'must be unique']],
      ['users', ['too many']],
    ],
  );
});

let h: WebHarness;
test('through the page: a bad port is shown beside its input, nothing is saved; a good one is saved and journaled', async () => {
  h = await createWebHarness();
  try {
    const b = new Browser(h);
    await b.login(ADMIN.login, ADMIN.password);
    const before = JSON.stringify(h.settings.current());
    const form = {
      'receivers.tcp_receivers[0].id': '1',
      'receivers.tcp_receivers[0].name': 'DC-09 TCP',
      'receivers.tcp_receivers[0].port': '70000',
      'receivers.udp_receivers[0].id': '2',
      'receivers.udp_receivers[0].name': 'DC-09 UDP',
      'receivers.udp_receivers[0].port': '10001',
    };
    const bad = await b.post('/settings/receivers', form, '/settings/receivers');
    assert.is(bad.status, 400);
    const html = await bad.text();
    assert.match(
      html,
      /<input id="f-receivers_tcp_receivers_0__port" name="receivers\.tcp_receivers\[0\]\.port" aria-invalid="true"[^>]*value="70000"[^>]*\/><p class="field-error" id="f-receivers_tcp_receivers_0__port-error" data-error-for="receivers\.tcp_receivers\[0\]\.port">must be between 1 and 65535<\/p>/,
    );
    assert.is(JSON.stringify(h.settings.current()), before);
    assert.equal(
      h.actions.filter((a) => a.includes('settings')),
      [],
    );
    const good = await b.post(
      '/settings/receivers',
      { ...form, 'receivers.tcp_receivers[0].port': '10005' },
      '/settings/receivers',
    );
    assert.is(good.status, 200);
    assert.is(h.settings.current().receivers.tcp_receivers[0]!.port, 10005);
    assert.ok(h.actions.includes('admin: settings section receivers saved'));
  } finally {
    await h.close();
  }
});

test.run();
