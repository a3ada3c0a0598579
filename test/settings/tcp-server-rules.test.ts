/**
 * TCP server outputs (type 5) in the settings: the listen address, the allow-list entries and the port, each refused
 * with its field path; the tcp_server block filled with its defaults and refused on other types.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultTcpServer } from '../../src/settings/schema-outputs.js';
import { accepted, errorsOf, output } from './support.js';

function server(extra: Record<string, unknown> = {}, block: Record<string, unknown> = {}): Record<string, unknown> {
  return output(1, {
    type: 5,
    identificator: '0.0.0.0:1025',
    tcp_server: { allowed_clients: ['192.0.2.10', '198.51.100.0/24', '2001:db8::/32'], ...block },
    ...extra,
  });
}

test('a TCP server output is accepted with every protocol and stored with its defaults filled in', async () => {
  assert.equal(defaultTcpServer(), { allowed_clients: [], no_client_failed_s: 60 });
  const next = await accepted({ outputs: [output(1, { type: 5, identificator: '127.0.0.1:1025' })] });
  assert.equal(next.outputs[0]!.tcp_server, defaultTcpServer());
  for (const protocol of ['MLR2', 'MLR2-DG', 'SIA-DC09', 'JSON']) {
    assert.equal(await errorsOf({ outputs: [server({ protocol })] }), [], protocol);
  }
  assert.equal(await errorsOf({ outputs: [server({ identificator: '[::]:1025' })] }), []);
});

test('the identificator is an IP address and port to listen on', async () => {
  for (const identificator of ['automation.example.net:1025', '0.0.0.0:0', '0.0.0.0', '0.0.0.0:70000']) {
    assert.equal(
      await errorsOf({ outputs: [server({ identificator })] }),
      [
        'outputs[0].identificator: must be address:port to listen on (an IPv4 address or [IPv6 address], 0.0.0.0 for every interface; port 1..65535) for a TCP server output',
      ],
      identificator,
    );
  }
});

test('allow-list entries must be addresses or CIDR blocks, once each', async () => {
  assert.equal(
    await errorsOf({
      outputs: [
        server({}, { allowed_clients: ['192.0.2.1', 'patriot.local', '10.0.0.0/33', 'fe80::/129', '192.0.2.1'] }),
      ],
    }),
    [
      'outputs[0].tcp_server.allowed_clients[1]: must be an IPv4 or IPv6 address or a CIDR block (e.g. 192.0.2.10 or 192.0.2.0/24)',
      'outputs[0].tcp_server.allowed_clients[2]: the prefix length must be 0..32',
      'outputs[0].tcp_server.allowed_clients[3]: the prefix length must be 0..128',
      'outputs[0].tcp_server.allowed_clients[4]: duplicate address (also used by outputs[0].tcp_server.allowed_clients[0])',
    ],
  );
  assert.equal(await errorsOf({ outputs: [server({}, { no_client_failed_s: 1 })] }), [
    'outputs[0].tcp_server.no_client_failed_s: must be between 5 and 86400',
  ]);
});

test('the port must not collide with a TCP receiver, the API or another server output', async () => {
  assert.equal(await errorsOf({ outputs: [server({ identificator: '0.0.0.0:10001' })] }), [
    'outputs[0].identificator: port already in use (also used by receivers.tcp_receivers[0])',
  ]);
  const api = (await accepted({})).api;
  assert.equal(await errorsOf({ outputs: [server({ identificator: `127.0.0.1:${api.api_port}` })] }), [
    'outputs[0].identificator: port already in use (also used by api.api_port)',
  ]);
  assert.equal(
    await errorsOf({
      outputs: [server(), output(2, { type: 5, identificator: '127.0.0.1:1025' })],
    }),
    ['outputs[1].identificator: port already in use (also used by outputs[0])'],
  );
  assert.equal(
    await errorsOf({
      device_status_output: { enabled: true, port: 1025 },
      outputs: [server()],
    }),
    ['outputs[0].identificator: port already in use (also used by device_status_output.port)'],
  );
  // UDP 10001 is another port space: a server output on TCP 10002 next to it is fine.
  assert.equal(await errorsOf({ outputs: [server({ identificator: '0.0.0.0:10002' })] }), []);
});

test('the tcp_server block only on type 5; JSON on type 5 is not a webhook', async () => {
  assert.equal(await errorsOf({ outputs: [output(1, { tcp_server: {} })] }), [
    'outputs[0].tcp_server: only allowed when type is 5 (TCP server)',
  ]);
  assert.equal(await errorsOf({ outputs: [server({ protocol: 'JSON', webhook: { secret: 'x' } })] }), [
    'outputs[0].webhook: only allowed when type is 4 (webhook)',
  ]);
  assert.equal(await errorsOf({ outputs: [server({ protocol: 'JSON', sia_dc09: {} })] }), [
    'outputs[0].sia_dc09: only allowed when protocol is "SIA-DC09"',
  ]);
  assert.equal(await errorsOf({ outputs: [server({ type: 6 })] }), [
    'outputs[0].type: must be 1 (TCP), 2 (UDP), 3 (serial COM), 4 (webhook) or 5 (TCP server)',
  ]);
});

test.run();
