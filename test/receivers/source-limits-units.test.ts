/** The pure parts of the per-source limits (#28.6, #28.9): source keys, the table, the budget, the fd limit. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConnectionBudget } from '../../src/receivers/connection-budget.js';
import {
  FALLBACK_FD_LIMIT,
  connectionBudgetFor,
  parseOpenFilesLimit,
  readFdLimit,
} from '../../src/receivers/fd-limit.js';
import { KnownSources } from '../../src/receivers/known-sources.js';
import { sourceKey, sourceKeyOfRemote } from '../../src/core/source-key.js';
import { SourceTable } from '../../src/receivers/source-table.js';

test('IPv4 counts per address, IPv4-mapped IPv6 as its IPv4 address, IPv6 per /64', () => {
  assert.is(sourceKey('203.0.113.7'), '203.0.113.7');
  assert.is(sourceKey('::ffff:203.0.113.7'), '203.0.113.7');
  assert.is(sourceKey('2001:db8:1:2::1'), '2001:db8:1:2::/64');
  assert.is(sourceKey('2001:0DB8:0001:0002:ffff:1:2:3'), '2001:db8:1:2::/64', 'another host of the same /64');
  assert.is(sourceKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.is(sourceKey('::1'), '0:0:0:0::/64');
  assert.is.not(sourceKey('2001:db8:1:3::1'), sourceKey('2001:db8:1:2::1'));
  assert.is(sourceKey('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
});

test('stored remote addresses give their source; port paths and phone numbers do not', () => {
  assert.is(sourceKeyOfRemote('198.51.100.2:4000'), '198.51.100.2');
  assert.is(sourceKeyOfRemote('[2001:db8::5]:4000'), '2001:db8:0:0::/64');
  assert.is(sourceKeyOfRemote('/dev/ttyUSB0'), null);
  assert.is(sourceKeyOfRemote('+4512345678'), null);
  assert.is(sourceKeyOfRemote(null), null);
  const known = new KnownSources(2);
  known.load(['10.0.0.1:1', '/dev/ttyS0', '10.0.0.2:2', '10.0.0.3:3']);
  assert.equal(
    [known.has('10.0.0.1'), known.has('10.0.0.2'), known.has('10.0.0.3'), known.size],
    [false, true, true, 2],
    'bounded, oldest out',
  );
});

test('the source table: a bucket per source, connections per source, and it forgets what it no longer needs', () => {
  const table = new SourceTable({ ratePerS: 1, burst: 3, maxConnections: 2 });
  assert.equal([table.open('a', 0), table.open('a', 0), table.open('a', 0)], [null, null, 'connections']);
  table.close('a');
  assert.is(table.open('a', 0), null, 'a token left');
  table.close('a');
  assert.is(table.open('a', 0), 'rate', 'the bucket is empty');
  assert.is(table.open('a', 1000), null, 'one token a second');
  assert.ok(table.take('b', 0) && table.take('b', 0) && table.take('b', 0) && !table.take('b', 0));
  table.close('a');
  table.close('a');
  table.sweep(10_000);
  assert.is(table.size, 0, 'no connection and a full bucket: dropped');
  const bounded = new SourceTable({ ratePerS: 1, burst: 1, maxConnections: 1 }, 8);
  for (let i = 0; i < 100; i++) bounded.take(`s${i}`, 0);
  assert.ok(bounded.size <= 8, `bounded: ${bounded.size}`);
});

test('the connection budget: strangers up to the ceiling, then in place of the longest idle stranger; known ones up to the limit', () => {
  const budget = new ConnectionBudget(20);
  assert.equal([budget.limit, budget.strangerCeiling], [20, 19]);
  const shed: number[] = [];
  const conn = (n: number) => ({ shed: () => shed.push(n) });
  const strangers = Array.from({ length: 19 }, (_, i) => conn(i));
  for (const c of strangers) assert.ok(budget.admit(c, true));
  budget.touch(strangers[0]!); // 0 read something: 1 is the longest idle now
  assert.ok(budget.admit(conn(100), true));
  assert.equal(shed, [1]);
  assert.ok(budget.admit(conn(101), false), 'a known device gets the last slot');
  assert.is(budget.used, 20);
  for (const c of strangers.slice(2)) budget.trust(c);
  budget.trust(strangers[0]!);
  assert.ok(budget.admit(conn(102), false), 'full: the one stranger left is shed for a known device');
  assert.equal(shed, [1, 100]);
  assert.not.ok(budget.admit(conn(103), false), 'nobody left to shed: refused');
  assert.not.ok(budget.admit(conn(104), true));
  budget.release(strangers[5]!);
  budget.release(strangers[5]!);
  assert.is(budget.used, 19, 'release is idempotent');
});

test('the budget is the open-files limit less a reserve of 1,024 (a quarter of a small limit)', () => {
  const limits =
    'Limit                     Soft Limit           Hard Limit           Units     \nMax open files            65536                524288               files     \n';
  assert.is(parseOpenFilesLimit(limits), 65536);
  assert.is(parseOpenFilesLimit('Max open files            unlimited            unlimited            files'), null);
  assert.equal(
    [connectionBudgetFor(65536), connectionBudgetFor(20000), connectionBudgetFor(1024)],
    [64512, 18976, 768],
  );
  assert.ok(readFdLimit() >= 64, "this process's limit is read");
  assert.is(readFdLimit('/nonexistent/limits'), FALLBACK_FD_LIMIT);
});

test.run();
