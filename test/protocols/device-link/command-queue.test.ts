import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CommandQueue, type QueueJob } from '../../../src/protocols/device-link/command-queue.js';
import { FakeTimers, flush } from './fake-timers.js';

/** A job that records when it starts and lets the test settle it. */
class Job implements QueueJob<string> {
  started = false;
  settle: ((r: string) => void) | null = null;
  constructor(
    readonly log: string[],
    readonly name: string,
  ) {}
  start(settle: (r: string) => void): void {
    this.started = true;
    this.settle = settle;
    this.log.push(`start ${this.name}`);
  }
  expire(started: boolean): string {
    return `${this.name} expired ${started ? 'in flight' : 'waiting'}`;
  }
}

function track(promise: Promise<string>, results: string[]): void {
  void promise.then((r) => results.push(r));
}

test('one command at a time: the second starts only when the first is settled', async () => {
  const timers = new FakeTimers();
  const queue = new CommandQueue<string>(timers, 10_000);
  const log: string[] = [];
  const results: string[] = [];
  const a = new Job(log, 'a');
  const b = new Job(log, 'b');
  track(queue.submit(a), results);
  track(queue.submit(b), results);
  assert.equal(log, ['start a']);
  assert.is(queue.size, 2);
  a.settle!('a ok');
  await flush();
  assert.equal(log, ['start a', 'start b']);
  b.settle!('b ok');
  await flush();
  assert.equal(results, ['a ok', 'b ok']);
  assert.is(queue.size, 0);
  assert.is(timers.armed, 0);
});

test('queues of two devices do not wait for each other', async () => {
  const timers = new FakeTimers();
  const log: string[] = [];
  const first = new CommandQueue<string>(timers, 10_000);
  const second = new CommandQueue<string>(timers, 10_000);
  void first.submit(new Job(log, 'dev1'));
  void second.submit(new Job(log, 'dev2'));
  assert.equal(log, ['start dev1', 'start dev2']);
});

test('the deadline expires the command in flight and the next one starts', async () => {
  const timers = new FakeTimers();
  const queue = new CommandQueue<string>(timers, 10_000);
  const log: string[] = [];
  const results: string[] = [];
  const a = new Job(log, 'a');
  track(queue.submit(a), results);
  timers.advance(5_000);
  const b = new Job(log, 'b');
  track(queue.submit(b), results);
  timers.advance(4_999);
  await flush();
  assert.equal(results, []);
  timers.advance(1);
  await flush();
  assert.equal(results, ['a expired in flight']);
  assert.ok(b.started);
  a.settle!('late reply');
  await flush();
  assert.equal(results, ['a expired in flight'], 'a settle after the deadline is ignored');
});

test('the deadline counts from submit: a command that waited gets only the time left', async () => {
  const timers = new FakeTimers();
  const queue = new CommandQueue<string>(timers, 10_000);
  const log: string[] = [];
  const results: string[] = [];
  track(queue.submit(new Job(log, 'a')), results);
  timers.advance(4_000);
  track(queue.submit(new Job(log, 'b')), results);
  timers.advance(6_000);
  await flush();
  assert.equal(log, ['start a', 'start b']);
  assert.equal(results, ['a expired in flight']);
  timers.advance(3_999);
  await flush();
  assert.equal(results, ['a expired in flight']);
  timers.advance(1);
  await flush();
  assert.equal(results, ['a expired in flight', 'b expired in flight']);
});

test('fail ends the command in flight and every waiting one at once, without starting them', async () => {
  const timers = new FakeTimers();
  const queue = new CommandQueue<string>(timers, 10_000);
  const log: string[] = [];
  const results: string[] = [];
  for (const name of ['a', 'b', 'c']) track(queue.submit(new Job(log, name)), results);
  queue.fail('NO_CONNECTION');
  await flush();
  assert.equal(results, ['NO_CONNECTION', 'NO_CONNECTION', 'NO_CONNECTION']);
  assert.equal(log, ['start a']);
  assert.is(queue.size, 0);
  assert.is(timers.armed, 0);
});

test('a full queue expires the extra command at once', async () => {
  const timers = new FakeTimers();
  const queue = new CommandQueue<string>(timers, 10_000, 1);
  const log: string[] = [];
  void queue.submit(new Job(log, 'a'));
  void queue.submit(new Job(log, 'b'));
  assert.is(await queue.submit(new Job(log, 'c')), 'c expired waiting');
});

test('a job settled inside start lets the next one start, and a throwing start counts as expired', async () => {
  const timers = new FakeTimers();
  const queue = new CommandQueue<string>(timers, 10_000);
  const quick: QueueJob<string> = { start: (settle) => settle('quick'), expire: () => 'never' };
  const broken: QueueJob<string> = {
    start: () => {
      throw new Error('socket gone');
    },
    expire: (started) => `broken expired ${started}`,
  };
  const results = await Promise.all([queue.submit(quick), queue.submit(broken), queue.submit(quick)]);
  assert.equal(results, ['quick', 'broken expired true', 'quick']);
  assert.is(timers.armed, 0);
});

test.run();
