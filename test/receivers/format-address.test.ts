/** formatAddress: how a device's address is written in rows, logs and the API ("ip:port", IPv6 in brackets). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatAddress } from '../../src/receivers/receiver-deps.js';

test('IPv4, IPv6 and IPv4-mapped IPv6 addresses as sockets report them', () => {
  assert.is(formatAddress('127.0.0.1', 5000), '127.0.0.1:5000');
  assert.is(formatAddress('192.0.2.17', 65535), '192.0.2.17:65535');
  assert.is(formatAddress('::1', 5000), '[::1]:5000');
  assert.is(formatAddress('2001:db8::7', 1), '[2001:db8::7]:1');
  assert.is(formatAddress('::ffff:192.0.2.17', 4000), '[::ffff:192.0.2.17]:4000');
  assert.is(formatAddress('fe80::1%eth0', 9), '[fe80::1%eth0]:9');
});

test.run();
