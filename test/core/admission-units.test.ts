/** The pure parts of the admission component: source keys, rate tables, the socket pool, doors, counts, the fd limit. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Admission } from '../../src/core/admission/admission.js';
import {
  FALLBACK_FD_LIMIT,
  connectionBudgetFor,
  parseOpenFilesLimit,
  readFdLimit,
} from '../../src/core/admission/fd-limit.js';
import { KnownSources } from '../../src/core/admission/known-sources.js';
import { RateTable, perHour } from '../../src/core/admission/rate-table.js';
import { SocketPool } from '../../src/core/admission/socket-pool.js';
import { ManualClock } from '../../src/core/clock.js';
import { sourceKey, sourceKeyOfRemote } from '../../src/core/source-key.js';
import { ADMISSION_DEFAULTS } from '../../src/settings/schema-admission.js';

function admission(limits: Partial<typeof ADMISSION_DEFAULTS> = {}, clock = new ManualClock()): Admission {
  return new Admission({
    clock,
    limits: () => ({ ...ADMISSION_DEFAULTS, ...limits }),
    autoSockets: () => 100,
  });
}

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

test('a rate table: a bucket per key, refilled at its rate, and it forgets what it no longer needs', () => {
  const table = new RateTable(() => ({ perS: 1, burst: 3 }));
  assert.ok(table.has('a', 0), 'a fresh key has its whole bucket');
  assert.equal(
    [table.take('a', 0), table.take('a', 0), table.take('a', 0), table.take('a', 0)],
    [true, true, true, false],
  );
  assert.not.ok(table.has('a', 500), 'half a token is no token');
  assert.ok(table.take('a', 1000), 'one token a second');
  table.sweep(10_000);
  assert.is(table.size, 0, 'a full bucket again: dropped');
  const bounded = new RateTable(() => ({ perS: 1, burst: 1 }), 8);
  for (let i = 0; i < 100; i++) bounded.take(`s${i}`, 0);
  assert.ok(bounded.size <= 8, `bounded: ${bounded.size}`);
  assert.equal(perHour(100), { perS: 100 / 3600, burst: 100 });
});

test('the socket pool: strangers up to the ceiling, then in place of the longest idle stranger; known ones up to the limit', () => {
  const pool = new SocketPool(20, 1000, 5);
  assert.equal([pool.limit, pool.strangerCeiling], [20, 19]);
  const shed: number[] = [];
  const door = {};
  const conn = (n: number, source = `s${n}`) => ({ source, door, shed: () => shed.push(n) });
  const strangers = Array.from({ length: 19 }, (_, i) => conn(i));
  for (const c of strangers) assert.is(pool.admit(c, true), null);
  pool.touch(strangers[0]!); // 0 read something: 1 is the longest idle now
  assert.is(pool.admit(conn(100), true), null);
  assert.equal(shed, [1]);
  assert.is(pool.admit(conn(101), false), null, 'a known source gets the last slot');
  assert.is(pool.used, 20);
  for (const c of strangers.slice(2)) pool.trust(c);
  pool.trust(strangers[0]!);
  assert.is(pool.admit(conn(102), false), null, 'full: the one stranger left is shed for a known source');
  assert.equal(shed, [1, 100]);
  assert.is(pool.admit(conn(103), false), 'sockets-full', 'nobody left to shed: refused');
  assert.is(pool.admit(conn(104), true), 'sockets-full');
  pool.release(strangers[5]!);
  pool.release(strangers[5]!);
  assert.is(pool.used, 19, 'release is idempotent');
  const perSource = new SocketPool(100, 2, 5);
  assert.equal(
    [perSource.admit(conn(1, 'x'), false), perSource.admit(conn(2, 'x'), true), perSource.admit(conn(3, 'x'), false)],
    [null, null, 'source-sockets'],
    'every door of one source together',
  );
});

test('a socket door: accepts and sockets per source, sockets at the door (its longest-idle stranger shed for a newcomer); every refusal counted', () => {
  const clock = new ManualClock(0);
  const a = admission({ max_sockets: 100 }, clock);
  a.configure();
  const door = a.socketDoor('tcp', () => ({ perSource: 3, total: 8, accepts: { perS: 1, burst: 4 } }));
  const closed: string[] = [];
  const open = (source: string) => door.admit(source, () => closed.push(source));
  const tickets = [open('x'), open('x'), open('x')];
  assert.is(open('x'), 'source-sockets');
  for (const t of tickets) if (typeof t !== 'string') t.release();
  assert.ok(typeof open('x') !== 'string', 'the fourth accept of the bucket');
  assert.is(open('x'), 'source-rate', 'the bucket is empty');
  clock.advance(1000);
  const a1 = open('a');
  for (const s of ['b', 'c', 'd', 'e', 'f', 'g']) open(s);
  assert.is(door.used, 8);
  if (typeof a1 !== 'string') a1.trust();
  assert.ok(typeof open('h') !== 'string', 'a full door: a newcomer in place of its longest idle stranger');
  assert.equal(closed, ['x'], 'the trusted one stays');
  a.devices.add('k');
  assert.ok(typeof open('k') !== 'string', 'a known device too');
  assert.equal(closed, ['x', 'b']);
  assert.equal(
    [
      a.counts.get('tcp', 'source-sockets'),
      a.counts.get('tcp', 'source-rate'),
      a.counts.get('tcp', 'shed'),
      a.figures().refused_tcp_total,
    ],
    [1, 1, 2, 4],
  );
});

test('the shared budget: strangers of any door shed first, known ones keep the reserve, and the API keeps its floor', () => {
  const a = admission({ max_sockets: 40, known_reserve_percent: 20, api_max_sockets: 8 });
  a.configure();
  const receiver = a.socketDoor('tcp', () => ({ perSource: 1000, total: 1000 }));
  a.http.serving(true);
  a.https.serving(true);
  const closed: string[] = [];
  // The API's two floors (8 each) are withheld from the receiver: strangers stop at 32 - 16 = 16.
  for (let i = 0; i < 16; i++) assert.ok(typeof receiver.admit(`s${i}`, () => closed.push(`s${i}`)) !== 'string');
  assert.ok(typeof receiver.admit('s16', () => closed.push('s16')) !== 'string', 'in place of the longest idle');
  assert.equal(closed, ['s0']);
  a.devices.add('dev');
  for (let i = 0; i < 8; i++) assert.ok(typeof receiver.admit('dev', () => closed.push('dev')) !== 'string');
  assert.is(a.pool.used, 24, "known devices use the reserve, never the API's floor");
  assert.ok(typeof receiver.admit('dev', () => closed.push('dev')) !== 'string');
  assert.equal(closed, ['s0', 's1'], 'beyond it, a known device goes in place of a stranger');
  // The API's floor is there, whatever the receiver holds.
  for (let i = 0; i < 8; i++) assert.ok(typeof a.https.admit(`u${i}`, () => undefined) !== 'string', `https ${i}`);
  for (let i = 0; i < 8; i++) assert.ok(typeof a.http.admit(`v${i}`, () => undefined) !== 'string', `http ${i}`);
  assert.is(a.pool.used, 40);
});

test('a rate door: per source, per scope and in total; a refusal spends nothing; UDP spares known sources the total', () => {
  const clock = new ManualClock(0);
  const a = admission(
    { new_objects_per_source_per_hour: 3, new_objects_per_receiver_per_hour: 4, new_objects_per_hour: 5 },
    clock,
  );
  const take = (source: string, receiver: number) => a.newObjects.take(source, receiver);
  assert.equal([take('x', 1), take('x', 1), take('x', 1), take('x', 1)], [true, true, true, false]);
  assert.equal([take('y', 1), take('y', 1)], [true, false], 'the receiver has 4');
  assert.equal([take('y', 2), take('z', 2)], [true, false], 'the gateway has 5');
  assert.equal(
    [
      a.counts.get('new-object', 'source-rate'),
      a.counts.get('new-object', 'scope-rate'),
      a.counts.get('new-object', 'total-rate'),
    ],
    [1, 1, 1],
  );
  clock.advance(3_600_000);
  assert.ok(take('z', 2), 'refilled an hour later');
  const udp = a.rateDoor('udp', () => ({
    perSource: { perS: 10, burst: 10 },
    total: { perS: 1, burst: 2 },
    totalForStrangers: true,
  }));
  assert.equal([udp.take('s1'), udp.take('s2'), udp.take('s3')], [true, true, false], 'two strangers in all');
  a.devices.add('dev');
  assert.ok(udp.take('dev') && udp.take('dev') && udp.take('dev'), 'a known source is not charged to the strangers');
});

test('the descriptor budget is the open-files limit less a reserve of 1,024 (a quarter of a small limit)', () => {
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
