import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ObjectsPort } from '../../src/writer/object-directory.js';
import { RESURFACED_MS, SeenLog, type Sight } from '../../src/writer/seen-log.js';

/** Records markSeen calls; nothing else of the port is used. */
function recorder(): { port: ObjectsPort; calls: Array<[number, number, string | null, boolean]> } {
  const calls: Array<[number, number, string | null, boolean]> = [];
  const port = {
    markSeen: (id: number, at: number, remote: string | null, o?: { ping?: boolean }) =>
      calls.push([id, at, remote, o?.ping ?? false]),
  };
  return { port: port as unknown as ObjectsPort, calls };
}

const sights = (...list: Array<[number, Sight]>) => new Map(list);

/** A SeenLog of interval 1,000 on a clock the test sets (the writer thread's monotonic clock). */
function log(): { log: SeenLog; at(ms: number): void } {
  let now = 0;
  return { log: new SeenLog(1000, () => now), at: (ms) => void (now = ms) };
}

test('first sighting, a first ping and a new address are written at once; the rest by the sweep once per interval, latest value', () => {
  const { log: seen, at } = log();
  const { port, calls } = recorder();
  const apply = (ms: number, id: number, sight: Sight) => {
    at(ms);
    seen.apply(port, sights([id, sight]));
  };
  apply(100, 7, { at: 100, ping: false, remote: 'a' });
  apply(300, 7, { at: 300, ping: false, remote: 'a' });
  apply(400, 7, { at: 400, ping: true, remote: 'a' });
  apply(500, 7, { at: 500, ping: false, remote: 'b' });
  apply(600, 7, { at: 600, ping: false, remote: 'b' });
  apply(700, 7, { at: 700, ping: true, remote: 'b' });
  assert.equal(calls, [
    [7, 100, 'a', false],
    [7, 400, 'a', true],
    [7, 500, 'b', false],
  ]);
  at(999);
  seen.apply(port, new Map());
  assert.is(calls.length, 3, 'one interval after the last sweep (at 0) is not over yet');
  at(1000);
  seen.apply(port, new Map());
  assert.equal(calls.slice(3), [[7, 700, 'b', true]], 'the sweep writes what is pending, ping included');
  apply(1500, 7, { at: 1500, ping: true, remote: 'b' });
  apply(1900, 7, { at: 1900, ping: false, remote: 'b' });
  assert.is(calls.length, 4, 'heard again within the interval: waits for the sweep');
  at(2000);
  seen.apply(port, new Map());
  assert.equal(calls.slice(4), [[7, 1900, 'b', true]], 'one write per interval, with the latest time and the ping');
});

test("the sweep runs on the writer's clock, not on the sightings' times; dueInMs tells the timer when", () => {
  const { log: seen, at } = log();
  const { port, calls } = recorder();
  assert.is(seen.dueInMs(), null, 'nothing pending: no timer');
  seen.apply(port, sights([1, { at: 5_000_000, ping: false, remote: 'x' }]));
  seen.apply(port, sights([1, { at: 9_000_000, ping: false, remote: 'x' }]));
  assert.is(calls.length, 1, 'a sighting time far ahead (a wall clock stepped) does not make the sweep due');
  at(250);
  assert.is(seen.dueInMs(), 750);
  at(1000);
  assert.is(seen.dueInMs(), 0);
  seen.sweep(port);
  assert.equal(calls.slice(1), [[1, 9_000_000, 'x', false]]);
  assert.is(seen.dueInMs(), null);
});

test("a device heard again after a day's silence is written at once", () => {
  const { log: seen } = log();
  const { port, calls } = recorder();
  seen.apply(port, sights([3, { at: 0, ping: false, remote: 'x' }]));
  seen.apply(port, sights([3, { at: RESURFACED_MS - 1, ping: false, remote: 'x' }]));
  assert.is(calls.length, 1);
  seen.apply(port, sights([3, { at: RESURFACED_MS, ping: false, remote: 'x' }]));
  assert.equal(calls.slice(1), [[3, RESURFACED_MS, 'x', false]]);
});

test('flush writes every pending sighting; after forget() the next sighting of each object is written at once', () => {
  const { log: seen } = log();
  const { port, calls } = recorder();
  seen.apply(port, sights([1, { at: 10, ping: false, remote: 'x' }], [2, { at: 10, ping: false, remote: 'y' }]));
  seen.apply(port, sights([1, { at: 20, ping: false, remote: 'x' }], [2, { at: 30, ping: false, remote: 'y' }]));
  assert.is(seen.pendingCount, 2);
  seen.flush(port);
  seen.committed();
  assert.equal(calls.slice(2), [
    [1, 20, 'x', false],
    [2, 30, 'y', false],
  ]);
  assert.is(seen.pendingCount, 0);
  seen.forget();
  assert.is(seen.pendingCount, 0, 'what committed is not pending again');
  seen.apply(port, sights([1, { at: 40, ping: false, remote: 'x' }]));
  assert.equal(calls.slice(4), [[1, 40, 'x', false]]);
});

test('a sweep whose transaction rolls back leaves its sightings pending for the next one', () => {
  const { log: seen, at } = log();
  const { port, calls } = recorder();
  seen.apply(port, sights([1, { at: 10, ping: false, remote: 'x' }]));
  seen.committed();
  seen.apply(port, sights([1, { at: 20, ping: true, remote: 'x' }]));
  seen.committed();
  seen.apply(port, sights([1, { at: 30, ping: false, remote: 'x' }]));
  seen.committed();
  at(1000);
  seen.sweep(port);
  assert.equal(calls.slice(2), [[1, 30, 'x', false]]);
  seen.forget(); // ROLLBACK
  assert.is(seen.pendingCount, 1);
  assert.is(seen.dueInMs(), 1000, 'the interval started over with the failed sweep');
  at(2000);
  seen.sweep(port);
  assert.equal(calls.slice(3), [[1, 30, 'x', false]]);
});

test.run();
