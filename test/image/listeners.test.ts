import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lanListeners, listenerSurprises, parseListeners } from '../../image/tools/listeners.js';

// The shape of `ss -Htlnu` on Debian trixie (iproute2 6.x), with systemd-resolved's LLMNR still on.
const SS = [
  'udp   UNCONN 0      0         127.0.0.54:53         0.0.0.0:*',
  'udp   UNCONN 0      0      127.0.0.53%lo:53         0.0.0.0:*',
  'udp   UNCONN 0      0            0.0.0.0:5355       0.0.0.0:*',
  'udp   UNCONN 0      0   10.0.2.15%eth0:68          0.0.0.0:*',
  'udp   UNCONN 0      0               [::]:5355          [::]:*',
  'tcp   LISTEN 0      128          0.0.0.0:22          0.0.0.0:*',
  'tcp   LISTEN 0      511                *:8443              *:*',
  'tcp   LISTEN 0      4096      127.0.0.53%lo:53        0.0.0.0:*',
  'tcp   LISTEN 0      128             [::]:22             [::]:*',
  'tcp   LISTEN 0      511        [::1]:9090                 [::]:*',
].join('\n');

test('LAN-reachable listeners: loopback and scopes dropped, IPv4 and IPv6 folded', () => {
  assert.equal(lanListeners(parseListeners(SS)), ['tcp/22', 'tcp/8443', 'udp/5355', 'udp/68']);
});

test('an interface-scoped IPv6 address is not taken for loopback', () => {
  const [listener] = parseListeners('udp UNCONN 0 0 [fe80::5054:ff:fe12:3456]%eth0:546 [::]:*');
  assert.equal(listener, { protocol: 'udp', address: 'fe80::5054:ff:fe12:3456', port: 546 });
});

test('surprises: LLMNR and a missing listener are named; DHCP clients are allowed', () => {
  assert.equal(listenerSurprises(['tcp/22', 'tcp/8443', 'udp/5355', 'udp/68'], [22, 8080, 8443]), [
    'unexpected udp/5355',
    'missing tcp/8080',
  ]);
  assert.equal(listenerSurprises(['tcp/22', 'tcp/8080', 'tcp/8443', 'udp/546', 'udp/68'], [22, 8080, 8443]), []);
});

test("the NTP client's pending reply socket is named by its owner and allowed; the same port of another process is not", () => {
  const ss = [
    'udp UNCONN 0 0 0.0.0.0:47900 0.0.0.0:* users:(("systemd-timesyn",pid=312,fd=20))',
    'udp UNCONN 0 0 0.0.0.0:47901 0.0.0.0:* users:(("node",pid=465,fd=31))',
    'tcp LISTEN 0 128 0.0.0.0:22 0.0.0.0:* users:(("sshd",pid=401,fd=3))',
  ].join('\n');
  const parsed = parseListeners(ss);
  assert.is(parsed[0]?.process, 'systemd-timesyn');
  const lan = lanListeners(parsed);
  assert.equal(lan, ['tcp/22', 'udp/47901', 'udp/ntp-client']);
  assert.equal(listenerSurprises(lan, [22]), ['unexpected udp/47901']);
});

test.run();
