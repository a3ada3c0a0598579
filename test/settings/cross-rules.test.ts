/**
 * Rules across fields and items, judged on the merged settings: uniqueness, references between
 * receivers, outputs and users, protocol-dependent ranges and the license limit.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { accepted, errorsOf, output, testEnv, user } from './support.js';

const tcp = (id: number, port: number, extra: Record<string, unknown> = {}) => ({ id, name: `T${id}`, port, ...extra });

test('receiver ports are unique per category; the same port on TCP and UDP is allowed', async () => {
  assert.equal(await errorsOf({ receivers: { tcp_receivers: [tcp(1, 10001), tcp(3, 10001)] } }), [
    'receivers.tcp_receivers[1].port: must be unique among TCP receivers (also used by receivers.tcp_receivers[0])',
  ]);
  assert.equal(await errorsOf({ receivers: { udp_receivers: [tcp(2, 9000), tcp(4, 9001), tcp(5, 9000)] } }), [
    'receivers.udp_receivers[2].port: must be unique among UDP receivers (also used by receivers.udp_receivers[0])',
  ]);
  // The defaults have TCP 10001 (id 1) and UDP 10001 (id 2).
  assert.equal(await errorsOf({ receivers: { udp_receivers: [tcp(2, 10001)] } }), []);
});

test('receiver ids are unique across all four lists', async () => {
  const patch = {
    receivers: {
      tcp_receivers: [tcp(1, 10001)],
      udp_receivers: [tcp(1, 10001)],
      com_receivers: [{ id: 7, name: 'C', port_id: '/dev/ttyUSB0' }],
      modem_receivers: [{ id: 7, name: 'M', port_id: '/dev/ttyUSB1' }],
    },
  };
  assert.equal(await errorsOf(patch), [
    'receivers.modem_receivers[0].id: must be unique among receivers (also used by receivers.com_receivers[0])',
    'receivers.udp_receivers[0].id: must be unique among receivers (also used by receivers.tcp_receivers[0])',
  ]);
});

test('COM receivers: line settings are checked, a DC-09 password only with protocol SIA-DC09', async () => {
  const com = (extra: Record<string, unknown>) => ({
    receivers: { com_receivers: [{ id: 7, name: 'C', port_id: '/dev/ttyUSB0', ...extra }] },
  });
  assert.equal(
    await errorsOf(
      com({
        protocol: 'SIA-DC09',
        encryption_password: 'Pa55w0',
        require_encryption: true,
        data_bits: 7,
        parity: 'even',
        stop_bits: 2,
        flow_control: 'rts-cts',
      }),
    ),
    [],
  );
  assert.equal(await errorsOf(com({ protocol: 'MLR2', encryption_password: 'Pa55w0' })), [
    'receivers.com_receivers[0].encryption_password: only allowed when protocol is "SIA-DC09"',
  ]);
  assert.equal(await errorsOf(com({ require_encryption: true })), [
    'receivers.com_receivers[0].require_encryption: needs an encryption_password',
  ]);
  assert.equal(await errorsOf(com({ data_bits: 6, parity: 'mark', protocol: 'MLR3', heartbeat_timeout_s: 5 })), [
    'receivers.com_receivers[0].data_bits: must be one of 7 or 8',
    'receivers.com_receivers[0].heartbeat_timeout_s: must be between 10 and 3600',
    'receivers.com_receivers[0].parity: must be one of "none", "even" or "odd"',
    'receivers.com_receivers[0].protocol: must be one of "SIA-DC09" or "MLR2"',
  ]);
});

test('a TCP receiver cannot take an API port, and the two API ports must differ', async () => {
  assert.equal(await errorsOf({ receivers: { tcp_receivers: [tcp(1, 8443)] } }), [
    'receivers.tcp_receivers[0].port: already used by api.api_port',
  ]);
  assert.equal(await errorsOf({ api: { api_http_port: 8443 } }), ['api.api_http_port: must differ from api.api_port']);
  assert.equal(await errorsOf({ api: { api_port: 10001 } }), [
    'receivers.tcp_receivers[0].port: already used by api.api_port',
  ]);
});

test('require_encryption needs an encryption_password', async () => {
  assert.equal(await errorsOf({ receivers: { tcp_receivers: [tcp(1, 10001, { require_encryption: true })] } }), [
    'receivers.tcp_receivers[0].require_encryption: needs an encryption_password',
  ]);
  assert.equal(
    await errorsOf({
      receivers: { tcp_receivers: [tcp(1, 10001, { require_encryption: true, encryption_password: '123456' })] },
    }),
    [],
  );
});

test('one serial device serves one receiver or output', async () => {
  const patch = {
    receivers: {
      com_receivers: [{ id: 3, name: 'C', port_id: '/dev/ttyUSB0' }],
      modem_receivers: [{ id: 4, name: 'M', port_id: '/dev/ttyUSB0' }],
    },
    outputs: [output(1, { type: 3, identificator: '/dev/ttyUSB0' })],
  };
  assert.equal(await errorsOf(patch), [
    'outputs[0].identificator: serial device already in use (also used by receivers.com_receivers[0])',
    'receivers.modem_receivers[0].port_id: serial device already in use (also used by receivers.com_receivers[0])',
  ]);
});

test('new receiver items get every Vigil default', async () => {
  const next = await accepted({
    receivers: { tcp_receivers: [tcp(1, 10001)], modem_receivers: [{ id: 9, name: 'M', port_id: '/dev/ttyUSB0' }] },
  });
  assert.equal(next.receivers.tcp_receivers, [
    {
      id: 1,
      name: 'T1',
      port: 10001,
      bind_address: '0.0.0.0',
      require_encryption: false,
      time_window_past_s: 40,
      time_window_future_s: 20,
      check_plain_timestamps: false,
      accept_local_time: false,
      max_connections_per_source: 256,
      max_accepts_per_source_per_min: 600,
      first_frame_timeout_s: 30,
      tolerate_binary_crc: true,
      tolerate_cr_counted: true,
      tolerate_trailing_bytes: true,
      tolerate_empty_line: true,
      tolerate_text_account: false,
    },
  ]);
  assert.equal(next.receivers.modem_receivers, [
    { id: 9, name: 'M', port_id: '/dev/ttyUSB0', baud_rate: 9600, poll_interval_s: 30, min_csq: 10, known_callers: [] },
  ]);
});

test('outputs: ids unique, UDP only with SIA-DC09, identificator by type', async () => {
  assert.equal(await errorsOf({ outputs: [output(1), output(1, { identificator: '10.0.0.1:2000' })] }), [
    'outputs[1].id: must be unique among outputs (also used by outputs[0])',
  ]);
  assert.equal(await errorsOf({ outputs: [output(1, { type: 2 })] }), [
    'outputs[0].type: UDP (2) is only allowed with protocol "SIA-DC09"',
  ]);
  assert.equal(await errorsOf({ outputs: [output(1, { type: 2, protocol: 'SIA-DC09' })] }), []);
  assert.equal(await errorsOf({ outputs: [output(1, { type: 6 })] }), [
    'outputs[0].type: must be 1 (TCP), 2 (UDP), 3 (serial COM), 4 (webhook) or 5 (TCP server)',
  ]);
  assert.equal(await errorsOf({ outputs: [output(1, { protocol: 'CID' })] }), [
    'outputs[0].protocol: must be one of "MLR2", "MLR2-DG", "SIA-DC09", "JSON" or "ADEMCO-685"',
  ]);
});

test('host:port identificators: IPv4, hostname or [IPv6], port 1..65535', async () => {
  const good = ['192.0.2.1:1', 'cms.example.com:65535', 'cms:1025', '[2001:db8::1]:2000', '[::1]:10001'];
  for (const identificator of good)
    assert.equal(await errorsOf({ outputs: [output(1, { identificator })] }), [], identificator);
  const bad = [
    '192.0.2.1',
    '192.0.2.1:0',
    'cms:65536',
    '2001:db8::1:2000',
    '[cms]:1',
    'bad_host:1',
    '-cms:1',
    '999.1.1.1:1',
    'a b:1',
    ':1025',
  ];
  for (const identificator of bad) {
    assert.equal(
      await errorsOf({ outputs: [output(1, { identificator })] }),
      [
        'outputs[0].identificator: must be host:port (IPv4 address, hostname or [IPv6 address]; port 1..65535) for a TCP or UDP output',
      ],
      identificator,
    );
  }
  assert.equal(await errorsOf({ outputs: [output(1, { type: 3, identificator: 'ttyUSB0' })] }), [
    'outputs[0].identificator: must be the absolute path of a serial device for a COM output',
  ]);
});

test('receiver_number and line_number: 0..99 / 0..9 for MLR2 and MLR2-DG, 0..0xFFFFFF for SIA-DC09', async () => {
  assert.equal(await errorsOf({ outputs: [output(1, { receiver_number: 99, line_number: 9 })] }), []);
  assert.equal(
    await errorsOf({ outputs: [output(1, { protocol: 'MLR2-DG', receiver_number: 100, line_number: 10 })] }),
    [
      'outputs[0].line_number: must be between 0 and 9 for MLR2-DG',
      'outputs[0].receiver_number: must be between 0 and 99 for MLR2-DG',
    ],
  );
  assert.equal(
    await errorsOf({
      outputs: [output(1, { protocol: 'SIA-DC09', receiver_number: 0xffffff, line_number: 0xffffff })],
    }),
    [],
  );
  assert.equal(
    await errorsOf({
      outputs: [output(1, { protocol: 'SIA-DC09', receiver_number: 0x1000000, line_number: -1, oid: 0x10000 })],
    }),
    [
      'outputs[0].line_number: must be between 0 and 16777215',
      'outputs[0].oid: must be between 0 and 65535 (0xFFFF)',
      'outputs[0].receiver_number: must be between 0 and 16777215',
    ],
  );
});

test('sia_dc09 block: only with SIA-DC09, defaults filled, key required and valid when encryption is on', async () => {
  assert.equal(await errorsOf({ outputs: [output(1, { sia_dc09: {} })] }), [
    'outputs[0].sia_dc09: only allowed when protocol is "SIA-DC09"',
  ]);
  const next = await accepted({ outputs: [output(1, { protocol: 'SIA-DC09' })] });
  assert.equal(next.outputs[0], {
    id: 1,
    name: 'Out 1',
    type: 1,
    protocol: 'SIA-DC09',
    identificator: '192.0.2.10:1025',
    oid: 1,
    receiver_number: 1,
    line_number: 1,
    sia_dc09: {
      encryption_enabled: false,
      encryption_key: '',
      link_test_interval_s: 60,
      ack_timeout_ms: 5000,
      retries: 3,
    },
    filters: { receivers: [], event_classes: [] },
    enabled: true,
  });
  const sia = (block: Record<string, unknown>) => ({ outputs: [output(1, { protocol: 'SIA-DC09', sia_dc09: block })] });
  const keyLine =
    'outputs[0].sia_dc09.encryption_key: must be 16, 24 or 32 ASCII characters or 32, 48 or 64 hex digits';
  assert.equal(await errorsOf(sia({ encryption_enabled: true })), [keyLine]);
  for (const key of ['k'.repeat(16), 'k'.repeat(24), 'k'.repeat(32), 'A'.repeat(48), 'a1'.repeat(32)]) {
    assert.equal(await errorsOf(sia({ encryption_enabled: true, encryption_key: key })), [], key);
  }
  for (const key of ['k'.repeat(15), 'k'.repeat(17), 'k'.repeat(48), 'g'.repeat(64), 'é'.repeat(16)]) {
    assert.equal(await errorsOf(sia({ encryption_enabled: true, encryption_key: key })), [keyLine], key);
  }
  assert.equal(await errorsOf(sia({ link_test_interval_s: 0, ack_timeout_ms: 500 })), []);
  assert.equal(await errorsOf(sia({ link_test_interval_s: 10, ack_timeout_ms: 60000 })), []);
  assert.equal(await errorsOf(sia({ link_test_interval_s: 9, ack_timeout_ms: 499 })), [
    'outputs[0].sia_dc09.ack_timeout_ms: must be between 500 and 60000',
    'outputs[0].sia_dc09.link_test_interval_s: must be 0 (off) or between 10 and 86400',
  ]);
  assert.equal(await errorsOf(sia({ link_test_interval_s: 86401, ack_timeout_ms: 60001 })), [
    'outputs[0].sia_dc09.ack_timeout_ms: must be between 500 and 60000',
    'outputs[0].sia_dc09.link_test_interval_s: must be 0 (off) or between 10 and 86400',
  ]);
  assert.equal(await errorsOf(sia({ retries: 0 })), []);
  assert.equal(await errorsOf(sia({ retries: 10 })), []);
  assert.equal(await errorsOf(sia({ retries: 11 })), ['outputs[0].sia_dc09.retries: must be between 0 and 10']);
  assert.equal(await errorsOf(sia({ retries: 1.5 })), ['outputs[0].sia_dc09.retries: must be an integer']);
});

test('output filters name existing receivers and known event classes, each once', async () => {
  assert.equal(
    await errorsOf({ outputs: [output(1, { filters: { receivers: [1, 2], event_classes: ['alarm', 'internal'] } })] }),
    [],
  );
  assert.equal(
    await errorsOf({
      outputs: [output(1, { filters: { receivers: [1, 5, 1], event_classes: ['alarm', 'panic', 'alarm'] } })],
    }),
    ['outputs[0].filters.event_classes[1]: must be one of "alarm", "restore", "link_test", "internal" or "other"'],
  );
  assert.equal(
    await errorsOf({ outputs: [output(1, { filters: { receivers: [1, 5, 1], event_classes: ['alarm', 'alarm'] } })] }),
    [
      'outputs[0].filters.event_classes[1]: duplicate event class (also used by outputs[0].filters.event_classes[0])',
      'outputs[0].filters.receivers[1]: receiver 5 does not exist',
      'outputs[0].filters.receivers[2]: duplicate receiver id (also used by outputs[0].filters.receivers[0])',
    ],
  );
});

test('removing a receiver that an output filter or a user still refers to is refused', async () => {
  const current = await accepted({
    outputs: [output(1, { filters: { receivers: [2], event_classes: [] } })],
    users: [user(1, { visible_receivers: { all: false, custom: [2] } })],
  });
  assert.equal(await errorsOf({ receivers: { udp_receivers: [] } }, current), [
    'outputs[0].filters.receivers[0]: receiver 2 does not exist',
    'users[0].visible_receivers.custom[0]: receiver 2 does not exist',
  ]);
});

test('ignorable startup triplets are unique by numeric value ("0A" equals "00a")', async () => {
  const ev = (event_code: string, group_no: string, zone_no: string) => ({ event_code, group_no, zone_no });
  assert.equal(await errorsOf({ ignorable_startup_events: [ev('0A', '1', '001'), ev('00a', '01', '1')] }), [
    'ignorable_startup_events[1]: duplicate event_code, group_no and zone_no (also used by ignorable_startup_events[0])',
  ]);
  assert.equal(
    await errorsOf({ ignorable_startup_events: [ev('0A', '1', '001'), ev('0A', '1', '002'), ev('0B', '1', '001')] }),
    [],
  );
});

test('each internal event type appears once', async () => {
  const ev = { type: 'login_failed', classificator: 'E', event_code: '461', group_no: '0', zone_no: '0', name: 'x' };
  assert.equal(await errorsOf({ internal_events: [ev, { ...ev, zone_no: '1' }] }), [
    'internal_events[1].type: must be unique among internal events (also used by internal_events[0])',
  ]);
});

test('users: ids unique, logins unique without case, scopes once each, visible_receivers rules', async () => {
  assert.equal(await errorsOf({ users: [user(1), user(1, { login: 'other' })] }), [
    'users[1].id: must be unique among users (also used by users[0])',
  ]);
  assert.equal(await errorsOf({ users: [user(1, { login: 'Admin' }), user(2, { login: 'admin' })] }), [
    'users[1].login: must be unique among users (compared without case) (also used by users[0])',
  ]);
  assert.equal(await errorsOf({ users: [user(1, { scopes: ['users', 'events', 'users'] })] }), [
    'users[0].scopes[2]: duplicate scope (also used by users[0].scopes[0])',
  ]);
  assert.equal(await errorsOf({ users: [user(1, { visible_receivers: { all: false, custom: [] } })] }), [
    'users[0].visible_receivers.custom: must list at least one receiver when all is false',
  ]);
  assert.equal(await errorsOf({ users: [user(1, { visible_receivers: { all: false, custom: [1, 9] } })] }), [
    'users[0].visible_receivers.custom[1]: receiver 9 does not exist',
  ]);
  // With all = true, custom is ignored (even a stale id does not block).
  assert.equal(await errorsOf({ users: [user(1, { visible_receivers: { all: true, custom: [9] } })] }), []);
  assert.equal(await errorsOf({ users: [user(1, { visible_receivers: { all: 'yes', custom: [] } })] }), [
    'users[0].visible_receivers.all: must be true or false',
  ]);
  assert.equal(await errorsOf({ users: [user(1, { visible_receivers: { all: false } })] }), [
    'users[0].visible_receivers.custom: required',
  ]);
});

test('the license limit refuses one user more than allowed, with a clear line', async () => {
  const env = () => testEnv({ maxUsers: 2 });
  assert.equal(await errorsOf({ users: [user(1), user(2)] }, undefined, env()), []);
  assert.equal(await errorsOf({ users: [user(1), user(2), user(3)] }, undefined, env()), [
    'users: the license allows at most 2 users (3 given)',
  ]);
});

test.run();
