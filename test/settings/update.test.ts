/**
 * Update semantics of PUT /api/settings: partial object sections, whole-array replacement,
 * users matched by id, masks from the public view, message order and secrecy.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toPublicView } from '../../src/settings/public-view.js';
import { defaultSettings } from '../../src/settings/schema.js';
import { validateSettingsUpdate } from '../../src/settings/validate.js';
import { SECRET64, accepted, errorsOf, output, testEnv, user } from './support.js';

test('a partial update changes only the supplied fields', async () => {
  const before = defaultSettings();
  const next = await accepted({ api: { api_port: 9443 }, tracker: { timeout_tolerance: 5 } }, before);
  assert.equal(next.api, { ...before.api, api_port: 9443 });
  assert.equal(next.tracker, { ...before.tracker, timeout_tolerance: 5 });
  assert.equal({ ...next, api: before.api, tracker: before.tracker }, before);
});

test('a supplied array replaces the stored array whole, including each receivers list', async () => {
  const current = await accepted({
    ignorable_startup_events: [
      { event_code: '1', group_no: '1', zone_no: '1' },
      { event_code: '2', group_no: '1', zone_no: '1' },
    ],
  });
  const next = await accepted(
    { ignorable_startup_events: [{ event_code: '3', group_no: '0', zone_no: '0' }], receivers: { udp_receivers: [] } },
    current,
  );
  assert.equal(next.ignorable_startup_events, [{ event_code: '3', group_no: '0', zone_no: '0' }]);
  assert.equal(next.receivers.udp_receivers, []);
  assert.equal(next.receivers.tcp_receivers, current.receivers.tcp_receivers);
  const cleared = await accepted({ ignorable_startup_events: [] }, next);
  assert.equal(cleared.ignorable_startup_events, []);
});

test('a new user needs a password; its password is hashed; an existing id without password keeps its hash', async () => {
  assert.equal(await errorsOf({ users: [{ ...user(1), password: undefined }] }), [
    'users[0].password: required for a new user',
  ]);
  const env = testEnv();
  const first = await accepted({ users: [user(1), user(2)] }, undefined, env);
  assert.equal(env.hashed, ['pw-1-long', 'pw-2-long']);
  assert.equal(
    first.users.map((u) => u.password_hash),
    ['hash:9:1', 'hash:9:2'],
  );
  assert.not.ok('password' in (first.users[0] as object));

  const env2 = testEnv();
  const { password: _p, ...withoutPassword } = user(1, { login: 'renamed' });
  const second = await accepted({ users: [withoutPassword, user(3)] }, first, env2);
  assert.equal(env2.hashed, ['pw-3-long']);
  assert.equal(
    second.users.map((u) => [u.id, u.login, u.password_hash]),
    [
      [1, 'renamed', 'hash:9:1'],
      [3, 'user3', 'hash:9:1'],
    ],
  );
});

test('nothing is hashed when the patch is refused', async () => {
  const env = testEnv();
  const result = await validateSettingsUpdate(defaultSettings(), { users: [user(1)], api: { api_port: 0 } }, env);
  assert.equal(result, { ok: false, errors: ['api.api_port: must be between 1 and 65535'] });
  assert.equal(env.hashed, []);
});

test('errors are sorted by path with indices in numeric order, and all issues are collected', async () => {
  const ids = Array.from({ length: 12 }, (_, i) => ({ event_code: '1', group_no: '1', zone_no: 'G' + i }));
  const errors = await errorsOf({
    tracker: { timeout_multiplier: 0 },
    api: { api_port: 0 },
    ignorable_startup_events: ids.slice(9),
  });
  assert.equal(errors, [
    'api.api_port: must be between 1 and 65535',
    'ignorable_startup_events[0].zone_no: must be 1 to 3 hex digits (0-9, A-F) without a 0x prefix',
    'ignorable_startup_events[1].zone_no: must be 1 to 3 hex digits (0-9, A-F) without a 0x prefix',
    'ignorable_startup_events[2].zone_no: must be 1 to 3 hex digits (0-9, A-F) without a 0x prefix',
    'tracker.timeout_multiplier: must be between 1 and 100',
  ]);
  const many = Array.from({ length: 11 }, (_, i) => ({
    event_code: i === 2 || i === 10 ? 'X' : '1',
    group_no: '1',
    zone_no: String(i),
  }));
  assert.equal(await errorsOf({ ignorable_startup_events: many }), [
    'ignorable_startup_events[2].event_code: must be 1 to 3 hex digits (0-9, A-F) without a 0x prefix',
    'ignorable_startup_events[10].event_code: must be 1 to 3 hex digits (0-9, A-F) without a 0x prefix',
  ]);
});

test('no line ever contains a submitted secret, whatever is wrong with it', async () => {
  const marker = 'TOPSECRET';
  const patch = {
    api: { api_jwt_secret: `${marker}-too-short` },
    database: { enabled: true, sqlpass: `${marker}pass`, sqluser: '', sqlport: `${marker}` },
    device_status_output: { encryption_enabled: true, encryption_key: `${marker}-key-of-wrong-length` },
    receivers: {
      tcp_receivers: [{ id: 1, name: 'T', port: 10001, encryption_password: `${marker}!!` }],
      modem_receivers: [
        { id: 6, name: 'M', port_id: '/dev/ttyUSB0', encryption_password: marker, sim_pin: `${marker}1` },
      ],
    },
    outputs: [
      output(1, { protocol: 'SIA-DC09', sia_dc09: { encryption_enabled: true, encryption_key: `${marker}-aes` } }),
    ],
    users: [user(1, { password: 7 }), user(2, { password: `${marker}`, extra: marker })],
  };
  const errors = await errorsOf(patch);
  assert.equal(errors, [
    'api.api_jwt_secret: must be exactly 64 characters',
    'database.sqlport: must be an integer',
    'receivers.modem_receivers[0].encryption_password: must be exactly 6 or 16 characters',
    'receivers.modem_receivers[0].sim_pin: must be 4 to 8 digits',
    'receivers.tcp_receivers[0].encryption_password: must be exactly 6 or 16 characters',
    'users[0].password: must be a string',
    'users[1].extra: unknown field',
  ]);
  // The same with a schema-valid patch whose merged values fail the cross-field rules.
  const crossErrors = await errorsOf({
    database: { enabled: true, sqlpass: `${marker}pass`, sqluser: '' },
    device_status_output: { encryption_enabled: true, encryption_key: `${marker}-wrong` },
    outputs: [
      output(1, { protocol: 'SIA-DC09', sia_dc09: { encryption_enabled: true, encryption_key: `${marker}-aes` } }),
    ],
  });
  assert.equal(crossErrors, [
    'database.sqluser: must not be empty when the database is enabled',
    'device_status_output.encryption_key: must be exactly 16 printable ASCII characters when encryption_enabled is true',
    'outputs[0].sia_dc09.encryption_key: must be 16, 24 or 32 ASCII characters or 32, 48 or 64 hex digits',
  ]);
});

test('the public view hides secrets, and sending it back as is changes nothing', async () => {
  const current = await accepted({
    api: { api_jwt_secret: SECRET64 },
    database: { sqlpass: 'dbpass' },
    device_status_output: { encryption_key: 'k'.repeat(16), encryption_enabled: true },
    receivers: {
      tcp_receivers: [{ id: 1, name: 'T', port: 10001, encryption_password: '123456' }],
      modem_receivers: [{ id: 6, name: 'M', port_id: '/dev/ttyUSB0', encryption_password: 'abcdef', sim_pin: '1234' }],
    },
    outputs: [
      output(1, { protocol: 'SIA-DC09', sia_dc09: { encryption_enabled: true, encryption_key: 'q'.repeat(16) } }),
    ],
    users: [user(1)],
  });
  const view = toPublicView(current) as Record<string, any>;
  assert.not.ok('api_jwt_secret' in view.api);
  assert.not.ok('password_hash' in view.users[0]);
  assert.is(view.database.sqlpass, '********');
  assert.is(view.device_status_output.encryption_key, '********');
  assert.is(view.receivers.tcp_receivers[0].encryption_password, '********');
  assert.is(view.receivers.udp_receivers[0].encryption_password, undefined);
  assert.is(view.receivers.modem_receivers[0].sim_pin, '********');
  assert.is(view.outputs[0].sia_dc09.encryption_key, '********');
  assert.is(toPublicView(defaultSettings()).database.sqlpass, '');
  const text = JSON.stringify(view);
  for (const secret of [SECRET64, 'dbpass', '123456', 'abcdef', '1234', 'q'.repeat(16), 'k'.repeat(16)]) {
    assert.not.ok(text.includes(secret), secret);
  }
  const env = testEnv();
  const roundTrip = await accepted(view, current, env);
  assert.equal(roundTrip, current);
  assert.equal(env.hashed, []);
});

test('the mask on a new item (no stored secret to keep) is refused with its own line', async () => {
  assert.equal(
    await errorsOf({
      receivers: { tcp_receivers: [{ id: 1, name: 'T', port: 10001, encryption_password: '********' }] },
    }),
    [
      'receivers.tcp_receivers[0].encryption_password: "********" keeps a stored secret, but the item with this id has none',
    ],
  );
});

test("the caller's patch object is not modified", async () => {
  const patch = { database: { sqlpass: '********' }, users: [user(1)] };
  const copy = structuredClone(patch);
  await accepted(patch);
  assert.equal(patch, copy);
});

test('api_jwt_secret and key paths may stay empty in stored settings but not be supplied empty', async () => {
  assert.is(defaultSettings().api.api_jwt_secret, '');
  const current = defaultSettings();
  current.api.private_key = '/etc/vigil/key.pem';
  assert.equal(await errorsOf({ api: { api_jwt_secret: '', private_key: '', public_key: ' ' } }, current), [
    'api.api_jwt_secret: must be exactly 64 characters',
    'api.private_key: must not be empty',
    'api.public_key: must not be empty',
  ]);
  // Sent back with the stored value (as a public view does before the first start): no change.
  assert.equal(await errorsOf({ api: { private_key: '', public_key: '' } }), []);
});

test('the defaults hold every documented value', () => {
  const d = defaultSettings();
  assert.equal(d.api, {
    api_port: 8443,
    api_http_port: 8080,
    bind_address: '0.0.0.0',
    allow_plain_http: false,
    api_jwt_secret: '',
    private_key: '',
    public_key: '',
  });
  assert.equal(d.database, {
    enabled: false,
    sqluser: 'vigil',
    sqlpass: '',
    sqlhost: '127.0.0.1',
    sqldatabase: 'vigil',
    sqlport: 3306,
    remove_lost_objects_age: 30,
    remove_events_age: 90,
    device_session_log_count: 10,
    sql_tls_mode: 'disabled',
    sql_tls_ca_file: '',
    sql_servers: [],
  });
  assert.equal(d.device_status_output, { enabled: false, port: 10010, encryption_enabled: false, encryption_key: '' });
  assert.equal(d.general, { instance_name: 'vigil', synchronize_device_time_interval: 1440 });
  // docs/settings.md §admission, docs/security.md "Admission".
  assert.equal(d.admission, {
    max_sockets: 0,
    max_sockets_per_source: 1024,
    known_reserve_percent: 5,
    api_max_sockets: 512,
    api_max_sockets_per_source: 32,
    api_accepts_per_source_per_min: 300,
    api_stranger_accepts_per_s: 20,
    tls_handshake_timeout_s: 10,
    request_headers_timeout_s: 10,
    status_output_connects_per_source_per_min: 6,
    udp_stranger_datagrams_per_s: 2000,
    link_hellos_per_source_per_min: 600,
    link_stranger_hellos_per_s: 100,
    new_objects_per_source_per_hour: 250,
    new_objects_per_receiver_per_hour: 500,
    new_objects_per_hour: 1000,
    enrolments_per_source_per_hour: 20,
    enrolments_per_hour: 200,
  });
  assert.equal(d.tracker, {
    timeout_multiplier: 3,
    sms_timeout_multiplier: 2,
    timeout_tolerance: 60,
    sms_timeout_tolerance: 600,
    event_count_for_restore: 1,
    event_count_for_restore_sms: 1,
  });
  assert.equal(
    [d.users, d.outputs, d.ignorable_startup_events, d.receivers.com_receivers, d.receivers.modem_receivers],
    [[], [], [], [], []],
  );
  // No receiver until the installer configures one (docs/settings.md).
  assert.equal([d.receivers.tcp_receivers, d.receivers.udp_receivers], [[], []]);
  assert.is(d.internal_events.length, 24);
  assert.equal(d.internal_events[2], {
    type: 'object_lost',
    classificator: 'E',
    event_code: '350',
    group_no: '00',
    zone_no: '000',
    name: 'Object lost',
  });
  // Each call is a fresh object.
  d.users.push({} as never);
  assert.equal(defaultSettings().users, []);
});

test.run();
