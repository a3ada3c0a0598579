import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ObjectsPort } from '../../src/ingest/object-directory.js';
import { SeenLog, type Sight } from '../../src/ingest/seen-log.js';

/** Records markSeen calls; nothing else of the port is used. */
function recorder(): { port: ObjectsPort; calls: Array<[number, number, string | null, boolean]> } {
  const calls: Array<[number, number, string | null, boolean]> = [];
  const port = { markSeen: (id: number, at: number, remote: string | null, o?: { ping?: boolean }) => calls.push([id, at, remote, o?.ping ?? false]) };
  return { port: port as unknown as ObjectsPort, calls };
}

const sights = (...list: Array<[number, Sight]>) => new Map(list);

test('first sighting, a first ping and a new address are written at once; the rest by the sweep once per interval, latest value', () => {
  const log = new SeenLog(1000);
  const { port, calls } = recorder();
  log.apply(port, sights([7, { at: 100, ping: false, remote: 'a' }]), 100);
  log.apply(port, sights([7, { at: 300, ping: false, remote: 'a' }]), 300);
  log.apply(port, sights([7, { at: 400, ping: true, remote: 'a' }]), 400);
  log.apply(port, sights([7, { at: 500, ping: false, remote: 'b' }]), 500);
  log.apply(port, sights([7, { at: 600, ping: false, remote: 'b' }]), 600);
  log.apply(port, sights([7, { at: 700, ping: true, remote: 'b' }]), 700);
  assert.equal(calls, [[7, 100, 'a', false], [7, 400, 'a', true], [7, 500, 'b', false]]);
  log.apply(port, new Map(), 1100);
  assert.equal(calls.slice(3), [[7, 700, 'b', true]], 'the sweep writes what is pending, ping included');
  log.apply(port, sights([7, { at: 2050, ping: true, remote: 'b' }]), 2050);
  assert.equal(calls.length, 4, 'heard again long after the last write: still waits for the sweep');
  log.apply(port, sights([7, { at: 2090, ping: false, remote: 'b' }]), 2090);
  log.apply(port, new Map(), 2100);
  assert.equal(calls.slice(4), [[7, 2090, 'b', true]], 'one write per interval, with the latest time and the ping');
});

test('flush writes every pending sighting; after forget() the next sighting of each object is written at once', () => {
  const log = new SeenLog(1000);
  const { port, calls } = recorder();
  log.apply(port, sights([1, { at: 10, ping: false, remote: 'x' }], [2, { at: 10, ping: false, remote: 'y' }]), 10);
  log.apply(port, sights([1, { at: 20, ping: false, remote: 'x' }], [2, { at: 30, ping: false, remote: 'y' }]), 30);
  assert.is(log.pendingCount, 2);
  log.flush(port);
  assert.equal(calls.slice(2), [[1, 20, 'x', false], [2, 30, 'y', false]]);
  assert.is(log.pendingCount, 0);
  log.forget();
  log.apply(port, sights([1, { at: 40, ping: false, remote: 'x' }]), 40);
  assert.equal(calls.slice(4), [[1, 40, 'x', false]]);
});

test.run();
