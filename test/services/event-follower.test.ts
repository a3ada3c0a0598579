/**
 * The EventFollower behind the page's live tail and GET /api/events/stream, on a real store file:
 * a burst larger than a page arrives whole and in order; a send that never completes ends it as
 * 'stalled'; a lost authority ends it as 'revoked' before anything more is read; a journal read
 * that fails is retried on the next wake-up from the same position.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { VigilError } from '../../src/core/errors.js';
import type { ApiEventRow, ApiStorePort } from '../../src/services/ports.js';
import { EventFollower, type EventFollowerOptions } from '../../src/services/event-follower.js';
import { sampleEvent, startStore, type StoreFixture } from '../store/helpers/store-fixture.js';

let fx: StoreFixture;
test.before.each(async () => {
  fx = await startStore();
});
test.after.each(async () => {
  await fx.cleanup();
});

const allowed = { holds: async () => true };

function follower(
  options: Partial<EventFollowerOptions> & Pick<EventFollowerOptions, 'send'>,
  store: Pick<ApiStorePort, 'events'> = fx.store,
) {
  const listeners = new Set<(id: number) => void>();
  const f = new EventFollower(
    { store, logger: silentLogger, onEventStored: (l) => (listeners.add(l), () => listeners.delete(l)) },
    { query: {}, visibleReceivers: null, after: 0, authority: allowed, recheckMs: 50, ...options },
  );
  const announce = (ids: number[]): void => {
    for (const id of ids) for (const l of listeners) l(id);
  };
  return { f, announce };
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

test('a burst of 450 events announced at once is delivered whole, in id order, once each (pages of 200)', async () => {
  const got: number[] = [];
  const { f, announce } = follower({ send: async (e) => void got.push(e.id) });
  f.start();
  const ids = (
    await fx.store.write.events.append(Array.from({ length: 450 }, (_, i) => sampleEvent({ account: String(i) })))
  ).map((r) => r.id);
  announce(ids);
  await until(() => got.length >= 450, 5000);
  await new Promise((r) => setTimeout(r, 120));
  f.stop();
  assert.equal(got, ids);
});

test('a send that does not complete within stallMs ends the follower as stalled', async () => {
  await fx.store.write.events.append([sampleEvent(), sampleEvent()]);
  let sends = 0;
  const { f } = follower({ stallMs: 100, send: () => (sends++, new Promise<void>(() => undefined)) });
  const started = Date.now();
  f.start();
  assert.is(await f.ended, 'stalled');
  assert.ok(Date.now() - started < 1000);
  assert.is(sends, 1);
});

test('a lost authority ends the follower as revoked and nothing more is sent', async () => {
  let holds = true;
  const got: number[] = [];
  const { f, announce } = follower({ authority: { holds: async () => holds }, send: async (e) => void got.push(e.id) });
  f.start();
  announce((await fx.store.write.events.append([sampleEvent()])).map((r) => r.id));
  await until(() => got.length === 1, 2000);
  holds = false;
  announce((await fx.store.write.events.append([sampleEvent()])).map((r) => r.id));
  assert.is(await f.ended, 'revoked');
  assert.equal(got, [1]);
});

test('a failing journal read is retried on the next wake-up from the same position', async () => {
  let fail = true;
  const flaky = {
    events: {
      query: (filter: Parameters<ApiStorePort['events']['query']>[0]) => {
        if (fail) throw new VigilError('STORE_FAILURE', 'disk I/O error');
        return fx.store.events.query(filter);
      },
    },
  };
  const got: number[] = [];
  const { f } = follower({ send: async (e: ApiEventRow) => void got.push(e.id) }, flaky);
  await fx.store.write.events.append([sampleEvent(), sampleEvent()]);
  f.start();
  await new Promise((r) => setTimeout(r, 120));
  assert.equal(got, []);
  fail = false;
  await until(() => got.length === 2, 2000);
  f.stop();
  assert.equal(got, [1, 2]);
});

test.run();
