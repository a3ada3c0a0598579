/** queryEvents and queryObjects (src/services/events-service.ts, objects-service.ts) over a real store. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cursorParam } from '../../src/services/query-params.js';
import { queryEvents } from '../../src/services/events-service.js';
import { queryObjects } from '../../src/services/objects-service.js';
import type { NewEvent } from '../../src/core/event-row.js';
import { createHarness, type Harness } from '../api/harness.js';
import { principal } from './principals.js';
import { alarmEvent } from '../api/alarm-event.js';

let h: Harness;
let deps: { store: Harness['store']; logger: Harness['deps']['logger'] };
test.before.each(async () => {
  h = await createHarness();
  deps = { store: h.store, logger: h.deps.logger };
  const base: NewEvent = alarmEvent({ account: '1111' });
  await h.store.write.events.append([
    base,
    { ...base, receiverId: 2, receiverKind: 'udp', account: '2222' },
    { ...base, receiverId: null, receiverKind: null, account: '' },
  ] as NewEvent[]);
  const at = h.clock.now();
  const a = await h.store.write.objects.upsertMain({
    uid: 'A1A1',
    account: '1111',
    receiverId: 1,
    receiverKind: 'tcp',
    at,
  });
  await h.store.write.objects.upsertRelated(a.id, '7777', { at });
  await h.store.write.objects.upsertMain({ uid: 'B2B2', account: '2222', receiverId: 2, receiverKind: 'udp', at });
  await h.store.write.overrides.set({ matchKind: 'uid', matchValue: 'A1A1', relatedOid: '7777', overrideOid: '9999' });
});
test.after.each(async () => {
  await h.close();
});

const q = (text: string) => new URLSearchParams(text);

test('events: forbidden without the scope; invalid parameters and a reversed window, one line each', () => {
  assert.equal(queryEvents(deps, principal(['objects']), q('')), { kind: 'forbidden' });
  assert.equal(queryEvents(deps, principal(['events']), q('acount=1&limit=0')), {
    kind: 'invalid',
    errors: ['limit: must be an integer between 1 and 1000', 'acount: unknown parameter'],
  });
  assert.equal(queryEvents(deps, principal(['events']), q('from=2000&to=1000')), {
    kind: 'invalid',
    errors: ['to: must not be before from'],
  });
});

test('events: a limited caller gets its receivers only, never the gateway events; extra parameters are opt-in', () => {
  const limited = queryEvents(deps, principal(['events'], [1]), q(''));
  assert.ok(limited.kind === 'ok' && limited.items.map((e) => e.receiverId).join() === '1');
  assert.ok(queryEvents(deps, principal(['events'], [1]), q('receiver=2')).kind === 'ok');
  const hidden = queryEvents(deps, principal(['events'], [1]), q('receiver=2'));
  assert.ok(hidden.kind === 'ok' && hidden.items.length === 0);
  const all = queryEvents(deps, principal(['events']), q('limit=2'));
  assert.ok(all.kind === 'ok' && all.items.length === 2 && all.nextCursor !== null);
  assert.is(queryEvents(deps, principal(['events']), q('after=5')).kind, 'invalid');
  assert.is(queryEvents(deps, principal(['events']), q('after=5'), { extraParams: { after: cursorParam } }).kind, 'ok');
});

test('objects: forbidden, invalid, visible receivers, override OIDs, and the page-only search and lost list', () => {
  assert.equal(queryObjects(deps, principal(['events']), q('')), { kind: 'forbidden' });
  assert.equal(queryObjects(deps, principal(['objects']), q('q=A1')), {
    kind: 'invalid',
    errors: ['q: unknown parameter'],
  });
  const limited = queryObjects(deps, principal(['objects'], [1]), q(''));
  assert.ok(limited.kind === 'ok');
  assert.equal(limited.kind === 'ok' && limited.items.map((o) => [o.row.account, o.overrideOid]), [
    ['7777', '9999'],
    ['1111', null],
  ]);
  assert.equal(limited.kind === 'ok' && limited.lost, []);
  const searched = queryObjects(deps, principal(['objects']), q('q=B2B2'), { search: true, lostFirst: 10 });
  assert.equal(searched.kind === 'ok' && searched.items.map((o) => o.row.uid), ['B2B2']);
});

test('a closed store is not-ready for both listings', async () => {
  await h.store.stop();
  assert.equal(queryEvents(deps, principal(['events']), q('')), { kind: 'not-ready' });
  assert.equal(queryObjects(deps, principal(['objects']), q('')), { kind: 'not-ready' });
});

test.run();
