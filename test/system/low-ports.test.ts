/** Ports below 1024 without CAP_NET_BIND_SERVICE are named with their settings paths (docs/watchdog.md §Capabilities). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { SettingsSchema, defaultSettings } from '../../src/settings/schema.js';
import { listeningPorts, portsNeedingCapability, readPrivilegeFacts } from '../../src/system/low-ports.js';
import { tempDir } from '../helpers/temp-dir.js';

function settingsWithLowPorts() {
  const receivers = {
    tcp_receivers: [
      { id: 1, name: 'a', port: 10001 },
      { id: 2, name: 'b', port: 443 },
    ],
    udp_receivers: [{ id: 3, name: 'c', port: 10001 }],
  };
  return v.parse(SettingsSchema, {
    api: { api_http_port: 80 },
    device_status_output: { enabled: true, port: 10010 },
    receivers,
    outputs: [
      {
        id: 1,
        name: 'server',
        type: 5,
        protocol: 'MLR2',
        identificator: '0.0.0.0:999',
        oid: 1,
        receiver_number: 1,
        line_number: 1,
      },
    ],
  });
}

test('without the capability, ports below ip_unprivileged_port_start are named with their settings path', () => {
  const ports = listeningPorts(settingsWithLowPorts());
  assert.equal(portsNeedingCapability(ports, { capEff: 0n, unprivilegedPortStart: 1024 }), [
    { port: 80, what: 'api.api_http_port' },
    { port: 443, what: 'receivers.tcp_receivers[1].port' },
    { port: 999, what: 'outputs[0].identificator' },
  ]);
});

test('with CAP_NET_BIND_SERVICE (bit 10), or a lowered unprivileged port start, nothing is named', () => {
  const ports = listeningPorts(settingsWithLowPorts());
  assert.equal(portsNeedingCapability(ports, { capEff: 1n << 10n, unprivilegedPortStart: 1024 }), []);
  assert.equal(portsNeedingCapability(ports, { capEff: 0n, unprivilegedPortStart: 80 }), []);
});

test('a port overridden to 0 (listener off) is no port; the defaults need nothing', () => {
  assert.equal(
    portsNeedingCapability(listeningPorts(defaultSettings(), { http: 0 }), { capEff: 0n, unprivilegedPortStart: 1024 }),
    [],
  );
});

test('the facts are read from /proc: CapEff and ip_unprivileged_port_start', () => {
  const dir = tempDir('vigil-proc-');
  try {
    mkdirSync(join(dir.path, 'self'));
    mkdirSync(join(dir.path, 'sys', 'net', 'ipv4'), { recursive: true });
    writeFileSync(
      join(dir.path, 'self', 'status'),
      'Name:\tnode\nCapInh:\t0000000000000000\nCapEff:\t0000000000000400\nCapBnd:\t0000000000000400\n',
    );
    writeFileSync(join(dir.path, 'sys', 'net', 'ipv4', 'ip_unprivileged_port_start'), '1024\n');
    assert.equal(readPrivilegeFacts(dir.path), { capEff: 0x400n, unprivilegedPortStart: 1024 });
    assert.is(readPrivilegeFacts(join(dir.path, 'missing')), null);
    assert.ok(readPrivilegeFacts() !== null, 'this Linux machine has both');
  } finally {
    dir.remove();
  }
});

test.run();
