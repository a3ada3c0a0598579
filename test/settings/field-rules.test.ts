/**
 * One field at a time: every range, length, format and type rule of the contract's §Resources,
 * each with its edge values on both sides and the exact line it produces.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SECRET64, accepted, errorsOf } from './support.js';

test('a body that is not a JSON object is refused with one line', async () => {
  for (const body of [null, [], 'x', 42, true, undefined]) {
    assert.equal(await errorsOf(body), ['body: must be a JSON object'], JSON.stringify(body));
  }
  assert.equal(await errorsOf({}), []);
});

test('ports accept 1 and 65535 and refuse 0 and 65536', async () => {
  assert.equal(await errorsOf({ api: { api_port: 1, api_http_port: 65535 } }), []);
  assert.equal(await errorsOf({ api: { api_port: 0 } }), ['api.api_port: must be between 1 and 65535']);
  assert.equal(await errorsOf({ api: { api_http_port: 65536 } }), ['api.api_http_port: must be between 1 and 65535']);
  assert.equal(await errorsOf({ device_status_output: { port: 0 } }), [
    'device_status_output.port: must be between 1 and 65535',
  ]);
  assert.equal(await errorsOf({ receivers: { tcp_receivers: [{ id: 1, name: 'a', port: 65536 }] } }), [
    'receivers.tcp_receivers[0].port: must be between 1 and 65535',
  ]);
});

test('integers must be integers: 1.5, "80", true and null are refused with the same line', async () => {
  for (const value of [1.5, '80', true, null, -1.5]) {
    assert.equal(await errorsOf({ api: { api_port: value } }), ['api.api_port: must be an integer'], String(value));
  }
});

test('api_jwt_secret must be exactly 64 printable ASCII characters when supplied', async () => {
  assert.equal(await errorsOf({ api: { api_jwt_secret: SECRET64 } }), []);
  for (const length of [0, 63, 65]) {
    assert.equal(await errorsOf({ api: { api_jwt_secret: 'k'.repeat(length) } }), [
      'api.api_jwt_secret: must be exactly 64 characters',
    ]);
  }
  assert.equal(await errorsOf({ api: { api_jwt_secret: 'é'.repeat(64) } }), [
    'api.api_jwt_secret: must contain only printable ASCII characters',
  ]);
});

test('api.bind_address must be an IP address', async () => {
  assert.equal(await errorsOf({ api: { bind_address: '::' } }), []);
  assert.equal(await errorsOf({ api: { bind_address: '127.0.0.1' } }), []);
  assert.equal(await errorsOf({ api: { bind_address: 'localhost' } }), [
    'api.bind_address: must be an IPv4 or IPv6 address',
  ]);
});

test('database.sql_servers: objects of a non-empty host and a port 0..65535, at most 8, each path named', async () => {
  assert.equal(await errorsOf({ database: { sql_servers: [{ host: 'db2' }, { host: 'db3', port: 0 }] } }), []);
  assert.equal(await errorsOf({ database: { sql_servers: [{ host: 'db2', port: 70000 }, { host: ' ' }] } }), [
    'database.sql_servers[0].port: must be between 0 and 65535 (0 means 3306)',
    'database.sql_servers[1].host: must not be empty',
  ]);
  assert.equal(await errorsOf({ database: { sql_servers: [{ host: 'db2', extra: 1 }] } }).then((e) => e.length), 1);
  assert.equal(await errorsOf({ database: { sql_servers: 'db2:3306' } }), ['database.sql_servers: must be an array']);
  assert.equal(
    await errorsOf({ database: { sql_servers: Array.from({ length: 9 }, (_, i) => ({ host: `db${i}` })) } }),
    ['database.sql_servers: must list at most 8 servers'],
  );
});

test('database: sqlport 0..65535 (0 stored as given), ages 1..365, session log count 1..25', async () => {
  assert.equal(await errorsOf({ database: { sqlport: 0 } }), []);
  assert.equal(await errorsOf({ database: { sqlport: 65536 } }), [
    'database.sqlport: must be between 0 and 65535 (0 means 3306)',
  ]);
  assert.equal(
    await errorsOf({ database: { remove_lost_objects_age: 1, remove_events_age: 365, device_session_log_count: 25 } }),
    [],
  );
  assert.equal(
    await errorsOf({ database: { remove_lost_objects_age: 0, remove_events_age: 366, device_session_log_count: 26 } }),
    [
      'database.device_session_log_count: must be between 1 and 25',
      'database.remove_events_age: must be between 1 and 365',
      'database.remove_lost_objects_age: must be between 1 and 365',
    ],
  );
  assert.equal(await errorsOf({ database: { device_session_log_count: 0 } }), [
    'database.device_session_log_count: must be between 1 and 25',
  ]);
});

test('database enabled needs sqluser, sqlpass, sqlhost and sqldatabase', async () => {
  assert.equal(
    await errorsOf({ database: { enabled: true, sqluser: ' ', sqlpass: '', sqlhost: '', sqldatabase: '' } }),
    [
      'database.sqldatabase: must not be empty when the database is enabled',
      'database.sqlhost: must not be empty when the database is enabled',
      'database.sqlpass: must not be empty when the database is enabled',
      'database.sqluser: must not be empty when the database is enabled',
    ],
  );
  assert.equal(await errorsOf({ database: { enabled: false, sqlpass: '' } }), []);
  assert.equal(await errorsOf({ database: { enabled: true, sqlpass: 'x' } }), []);
});

test('device_status_output.encryption_key must be exactly 16 characters when encryption is on', async () => {
  const on = (key: string) => ({ device_status_output: { encryption_enabled: true, encryption_key: key } });
  assert.equal(await errorsOf(on('k'.repeat(16))), []);
  for (const length of [15, 17]) {
    assert.equal(await errorsOf(on('k'.repeat(length))), [
      'device_status_output.encryption_key: must be exactly 16 printable ASCII characters when encryption_enabled is true',
    ]);
  }
  // The stored key is "" by default: switching encryption on alone is judged with the merged key.
  assert.equal(await errorsOf({ device_status_output: { encryption_enabled: true } }), [
    'device_status_output.encryption_key: must be exactly 16 printable ASCII characters when encryption_enabled is true',
  ]);
  assert.equal(await errorsOf({ device_status_output: { encryption_enabled: false, encryption_key: 'short' } }), []);
});

test('general: instance_name non-empty, synchronize_device_time_interval 1..525600 minutes', async () => {
  assert.equal(await errorsOf({ general: { instance_name: 'Box 1', synchronize_device_time_interval: 1 } }), []);
  assert.equal(await errorsOf({ general: { instance_name: '', synchronize_device_time_interval: 0 } }), [
    'general.instance_name: must not be empty',
    'general.synchronize_device_time_interval: must be between 1 and 525600',
  ]);
  assert.equal(await errorsOf({ general: { instance_name: '   ' } }), ['general.instance_name: must not be empty']);
  assert.equal(await errorsOf({ general: { synchronize_device_time_interval: 525601 } }), [
    'general.synchronize_device_time_interval: must be between 1 and 525600',
  ]);
});

test('tracker ranges: multipliers 1..100, tolerances 0..3600, restore counts 1..10', async () => {
  const low = {
    timeout_multiplier: 1,
    sms_timeout_multiplier: 1,
    timeout_tolerance: 0,
    sms_timeout_tolerance: 0,
    event_count_for_restore: 1,
    event_count_for_restore_sms: 1,
  };
  const high = {
    timeout_multiplier: 100,
    sms_timeout_multiplier: 100,
    timeout_tolerance: 3600,
    sms_timeout_tolerance: 3600,
    event_count_for_restore: 10,
    event_count_for_restore_sms: 10,
  };
  assert.equal(await errorsOf({ tracker: low }), []);
  assert.equal(await errorsOf({ tracker: high }), []);
  assert.equal(
    await errorsOf({
      tracker: {
        timeout_multiplier: 0,
        sms_timeout_multiplier: 101,
        timeout_tolerance: -1,
        sms_timeout_tolerance: 3601,
        event_count_for_restore: 0,
        event_count_for_restore_sms: 11,
      },
    }),
    [
      'tracker.event_count_for_restore: must be between 1 and 10',
      'tracker.event_count_for_restore_sms: must be between 1 and 10',
      'tracker.sms_timeout_multiplier: must be between 1 and 100',
      'tracker.sms_timeout_tolerance: must be between 0 and 3600',
      'tracker.timeout_multiplier: must be between 1 and 100',
      'tracker.timeout_tolerance: must be between 0 and 3600',
    ],
  );
});

test('hex fields: 1..3 hex digits of either case, no 0x prefix, bounded by 0xFFF / 0xFF', async () => {
  const one = (e: Record<string, unknown>) => ({
    ignorable_startup_events: [{ event_code: '1', group_no: '1', zone_no: '1', ...e }],
  });
  assert.equal(await errorsOf(one({ event_code: 'FFF', group_no: 'ff', zone_no: 'fFf' })), []);
  assert.equal(await errorsOf(one({ group_no: '0FF' })), []);
  assert.equal(await errorsOf(one({ event_code: '1000' })), [
    'ignorable_startup_events[0].event_code: must be 1 to 3 hex digits (0-9, A-F) without a 0x prefix',
  ]);
  assert.equal(await errorsOf(one({ group_no: '100' })), [
    'ignorable_startup_events[0].group_no: must be at most 0xFF',
  ]);
  for (const bad of ['0x1', '', 'G', ' 1', '1 ']) {
    assert.equal(
      await errorsOf(one({ zone_no: bad })),
      ['ignorable_startup_events[0].zone_no: must be 1 to 3 hex digits (0-9, A-F) without a 0x prefix'],
      JSON.stringify(bad),
    );
  }
  assert.equal(await errorsOf(one({ zone_no: 12 })), ['ignorable_startup_events[0].zone_no: must be a string']);
});

test('internal events: type from the enumeration, classificator E or R, same hex bounds, name non-empty', async () => {
  const ev = (e: Record<string, unknown>) => ({
    internal_events: [
      {
        type: 'object_lost',
        classificator: 'E',
        event_code: '350',
        group_no: '00',
        zone_no: '000',
        name: 'Lost',
        ...e,
      },
    ],
  });
  assert.equal(await errorsOf(ev({})), []);
  assert.equal(
    await errorsOf(ev({ type: 'reboot', classificator: 'P', event_code: '1000', group_no: '100', name: '' })),
    [
      'internal_events[0].classificator: must be one of "E" or "R"',
      'internal_events[0].event_code: must be 1 to 3 hex digits (0-9, A-F) without a 0x prefix',
      'internal_events[0].group_no: must be at most 0xFF',
      'internal_events[0].name: must not be empty',
      'internal_events[0].type: must be one of "gateway_started", "gateway_stopping", "object_lost", "object_restored", "output_failed", "output_restored", "receiver_failed", "receiver_restored", "receiver_trouble", "store_trouble", "store_restored", "clock_trouble", "clock_restored", "settings_changed", "login_failed", "device_link_failed", "technician_action", "device_identity_conflict", "output_client_refused", "new_object_refused", "update_installed", "update_activated", "update_confirmed" or "update_rolled_back"',
    ],
  );
});

test('receiver encryption_password must be exactly 6 or 16 characters', async () => {
  const tcp = (pw: string) => ({
    receivers: { tcp_receivers: [{ id: 1, name: 'T', port: 10001, encryption_password: pw }] },
  });
  assert.equal(await errorsOf(tcp('123456')), []);
  assert.equal(await errorsOf(tcp('0123456789abcdef')), []);
  for (const length of [0, 5, 7, 15, 17]) {
    assert.equal(
      await errorsOf(tcp('p'.repeat(length))),
      ['receivers.tcp_receivers[0].encryption_password: must be exactly 6 or 16 characters'],
      String(length),
    );
  }
  const modem = {
    receivers: {
      modem_receivers: [
        { id: 5, name: 'M', port_id: '/dev/ttyUSB0', encryption_password: 'p'.repeat(7), sim_pin: '12a4' },
      ],
    },
  };
  assert.equal(await errorsOf(modem), [
    'receivers.modem_receivers[0].encryption_password: must be exactly 6 or 16 characters',
    'receivers.modem_receivers[0].sim_pin: must be 4 to 8 digits',
  ]);
});

test("a modem receiver's known_callers: upper-case hex accounts and phone numbers of 3 to 20 digits", async () => {
  const modem = (known_callers: unknown) => ({
    receivers: { modem_receivers: [{ id: 5, name: 'M', port_id: '/dev/ttyUSB0', known_callers }] },
  });
  assert.equal(
    await errorsOf(
      modem([
        { account: '1234', number: '+370 600-00042' },
        { account: '00AB', number: '860000042' },
      ]),
    ),
    [],
  );
  assert.equal(
    await errorsOf(
      modem([{ account: 'ab12', number: '+3706x' }, { account: '1234', number: '12' }, { account: '1234' }]),
    ),
    [
      'receivers.modem_receivers[0].known_callers[0].account: must be 3 to 16 upper-case hex digits (0-9, A-F), as the objects list shows the account',
      'receivers.modem_receivers[0].known_callers[0].number: must be a phone number: digits, optionally a leading +, spaces and dashes',
      'receivers.modem_receivers[0].known_callers[1].number: must have 3 to 20 digits',
      'receivers.modem_receivers[0].known_callers[2].number: required',
    ],
  );
});

test('receiver time windows are 0..3600 s and baud rates come from the fixed list', async () => {
  const tcp = { id: 1, name: 'T', port: 10001, time_window_past_s: 0, time_window_future_s: 3600 };
  assert.equal(await errorsOf({ receivers: { tcp_receivers: [tcp] } }), []);
  assert.equal(
    await errorsOf({ receivers: { tcp_receivers: [{ ...tcp, time_window_past_s: 3601, time_window_future_s: -1 }] } }),
    [
      'receivers.tcp_receivers[0].time_window_future_s: must be between 0 and 3600',
      'receivers.tcp_receivers[0].time_window_past_s: must be between 0 and 3600',
    ],
  );
  assert.equal(
    await errorsOf({
      receivers: { com_receivers: [{ id: 3, name: 'C', port_id: '/dev/ttyUSB0', baud_rate: 115200 }] },
    }),
    [],
  );
  assert.equal(
    await errorsOf({ receivers: { com_receivers: [{ id: 3, name: 'C', port_id: '/dev/ttyUSB0', baud_rate: 300 }] } }),
    ['receivers.com_receivers[0].baud_rate: must be one of 1200, 2400, 4800, 9600, 19200, 38400, 57600 or 115200'],
  );
});

test('ids must be non-zero positive integers', async () => {
  assert.equal(
    await errorsOf({
      receivers: { tcp_receivers: [{ id: 0, name: 'T', port: 1 }], udp_receivers: [{ id: -2, name: 'U', port: 1 }] },
    }),
    [
      'receivers.tcp_receivers[0].id: must be an integer between 1 and 2147483647',
      'receivers.udp_receivers[0].id: must be an integer between 1 and 2147483647',
    ],
  );
});

test('users: token_time 1..5256000, scopes from the four names, password non-empty', async () => {
  const u = (extra: Record<string, unknown>) => ({
    users: [
      {
        id: 1,
        login: 'a',
        password: 'pw',
        token_time: 1,
        scopes: [],
        visible_receivers: { all: true, custom: [] },
        ...extra,
      },
    ],
  });
  assert.equal(await errorsOf(u({})), []);
  assert.equal(await errorsOf(u({ token_time: 5256000, scopes: ['settings', 'users', 'events', 'objects'] })), []);
  assert.equal(await errorsOf(u({ token_time: 0 })), ['users[0].token_time: must be between 1 and 5256000']);
  assert.equal(await errorsOf(u({ token_time: 5256001 })), ['users[0].token_time: must be between 1 and 5256000']);
  assert.equal(await errorsOf(u({ scopes: ['settings', 'device_control'] })), [
    'users[0].scopes[1]: must be one of "settings", "users", "events" or "objects"',
  ]);
  assert.equal(await errorsOf(u({ scopes: 'settings' })), ['users[0].scopes: must be an array']);
  assert.equal(await errorsOf(u({ password: '' })), ['users[0].password: must not be empty']);
  assert.equal(await errorsOf(u({ login: '' })), ['users[0].login: must not be empty']);
  assert.equal(await errorsOf(u({ login: 'ad\u0001min' })), ['users[0].login: must not contain control characters']);
  assert.equal(await errorsOf(u({ login: 'ad min', password: ' \u0001 ' })), []);
});

test('unknown keys are refused at the top, inside sections and inside array items', async () => {
  assert.equal(await errorsOf({ extra: 1 }), ['extra: unknown field']);
  assert.equal(await errorsOf({ api: { api_prot: 1 } }), ['api.api_prot: unknown field']);
  assert.equal(await errorsOf({ outputs: [{ ...outputFields(), unknown_field: true }] }), [
    'outputs[0].unknown_field: unknown field',
  ]);
  assert.equal(
    await errorsOf({
      users: [
        {
          id: 1,
          login: 'a',
          password: 'p',
          password_hash: 'x',
          token_time: 1,
          scopes: [],
          visible_receivers: { all: true, custom: [] },
        },
      ],
    }),
    ['users[0].password_hash: unknown field'],
  );
});

test('wrong shapes: a section must be an object, a list an array, and missing fields are named', async () => {
  assert.equal(await errorsOf({ api: [] }), ['api: must be an object']);
  assert.equal(await errorsOf({ general: 'x' }), ['general: must be an object']);
  assert.equal(await errorsOf({ users: {} }), ['users: must be an array']);
  assert.equal(await errorsOf({ outputs: [{ id: 1 }] }), [
    'outputs[0].identificator: required',
    'outputs[0].line_number: required',
    'outputs[0].name: required',
    'outputs[0].oid: required',
    'outputs[0].protocol: required',
    'outputs[0].receiver_number: required',
    'outputs[0].type: required',
  ]);
  assert.equal(await errorsOf({ outputs: [{ ...outputFields(), filters: [] }] }), [
    'outputs[0].filters: must be an object',
  ]);
});

function outputFields(): Record<string, unknown> {
  return {
    id: 1,
    name: 'O',
    type: 1,
    protocol: 'MLR2',
    identificator: 'cms.example.com:1025',
    oid: 0,
    receiver_number: 0,
    line_number: 0,
  };
}

test('per-source limits of IP receivers (#28.6, #28.9): ranges, and each only on its own kind', async () => {
  const tcp = { id: 1, name: 'T', port: 10001 };
  assert.equal(
    await errorsOf({
      receivers: {
        tcp_receivers: [
          {
            ...tcp,
            max_connections_per_source: 1,
            max_accepts_per_source_per_min: 100_000,
            first_frame_timeout_s: 600,
          },
        ],
      },
    }),
    [],
  );
  assert.equal(
    await errorsOf({
      receivers: {
        tcp_receivers: [
          { ...tcp, max_connections_per_source: 0, max_accepts_per_source_per_min: 0, first_frame_timeout_s: 601 },
        ],
      },
    }),
    [
      'receivers.tcp_receivers[0].first_frame_timeout_s: must be between 1 and 600',
      'receivers.tcp_receivers[0].max_accepts_per_source_per_min: must be between 1 and 100000',
      'receivers.tcp_receivers[0].max_connections_per_source: must be between 1 and 20000',
    ],
  );
  assert.equal(
    await errorsOf({ receivers: { udp_receivers: [{ ...tcp, max_datagrams_per_source_per_s: 100_001 }] } }),
    ['receivers.udp_receivers[0].max_datagrams_per_source_per_s: must be between 1 and 100000'],
  );
  assert.equal(await errorsOf({ receivers: { udp_receivers: [{ ...tcp, max_connections_per_source: 5 }] } }), [
    'receivers.udp_receivers[0].max_connections_per_source: unknown field',
  ]);
  assert.equal(await errorsOf({ receivers: { tcp_receivers: [{ ...tcp, max_datagrams_per_source_per_s: 5 }] } }), [
    'receivers.tcp_receivers[0].max_datagrams_per_source_per_s: unknown field',
  ]);
});

test('receivers: the tolerate_* switches are booleans, named by their field path; left out they take their defaults', async () => {
  assert.equal(
    await errorsOf({ receivers: { udp_receivers: [{ id: 1, name: 'a', port: 1, tolerate_binary_crc: 'yes' }] } }),
    ['receivers.udp_receivers[0].tolerate_binary_crc: must be true or false'],
  );
  assert.equal(
    await errorsOf({
      receivers: { com_receivers: [{ id: 2, name: 'c', port_id: '/dev/ttyS0', tolerate_text_account: 1 }] },
    }),
    ['receivers.com_receivers[0].tolerate_text_account: must be true or false'],
  );
  const next = await accepted({
    receivers: { tcp_receivers: [{ id: 1, name: 'a', port: 1, tolerate_empty_line: false }] },
  });
  const rx = next.receivers.tcp_receivers[0]!;
  assert.equal(
    [
      rx.tolerate_binary_crc,
      rx.tolerate_cr_counted,
      rx.tolerate_trailing_bytes,
      rx.tolerate_empty_line,
      rx.tolerate_text_account,
    ],
    [true, true, true, false, false],
  );
});

test.run();
