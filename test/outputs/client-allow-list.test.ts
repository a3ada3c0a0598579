/**
 * The allow-list of a TCP server output: addresses and CIDR blocks of both families, loopback only when empty,
 * IPv4-mapped IPv6 clients matched as IPv4, and nothing widened by an entry the settings would refuse.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClientAllowList } from '../../src/outputs/client-allow-list.js';

test('addresses and CIDR blocks of both families', () => {
  const list = new ClientAllowList(['192.0.2.10', '198.51.100.0/24', '2001:db8::/32']);
  for (const ok of ['192.0.2.10', '198.51.100.200', '2001:db8::7', '::ffff:198.51.100.1'])
    assert.ok(list.allows(ok), ok);
  for (const no of ['192.0.2.11', '198.51.101.1', '2001:db9::1', '127.0.0.1', '::1', '', 'localhost'])
    assert.not.ok(list.allows(no), no);
});

test('an empty list admits loopback only', () => {
  const list = new ClientAllowList([]);
  assert.is(list.description, 'loopback only');
  for (const ok of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1']) assert.ok(list.allows(ok), ok);
  for (const no of ['10.0.0.1', '192.0.2.1', 'fe80::1']) assert.not.ok(list.allows(no), no);
});

test('an invalid entry is left out, never read as "everyone"', () => {
  const list = new ClientAllowList(['not-an-address', '10.0.0.0/99']);
  assert.not.ok(list.allows('10.0.0.1'));
  assert.not.ok(list.allows('127.0.0.1'), 'a non-empty list does not fall back to loopback');
});

test.run();
