/** setOverride and listOverrides (src/services/overrides-service.ts) over a real store. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listOverrides, setOverride } from '../../src/services/overrides-service.js';
import { createHarness, type Harness } from '../api/harness.js';
import { principal } from './principals.js';

let h: Harness;
let deps: { store: Harness['store']; logger: Harness['deps']['logger'] };
test.before.each(async () => {
  h = await createHarness();
  deps = { store: h.store, logger: h.deps.logger };
  const at = h.clock.now();
  await h.store.write.objects.upsertMain({ uid: 'A1A1', account: '1111', receiverId: 1, receiverKind: 'tcp', at });
  await h.store.write.objects.upsertMain({ uid: 'B2B2', account: '2222', receiverId: 2, receiverKind: 'udp', at });
});
test.after.each(async () => {
  await h.close();
});

const limited = principal(['objects'], [1]);

test('without the objects scope: forbidden before the body is even parsed', async () => {
  assert.equal(await setOverride(deps, principal(['events']), 'not an object'), { kind: 'forbidden' });
  assert.equal(listOverrides(deps, principal(['events'])), { kind: 'forbidden' });
});

test('the contract parser decides invalid bodies, with its message', async () => {
  assert.equal(await setOverride(deps, limited, { new_override_oid: '9' }), {
    kind: 'invalid',
    error: 'UID or OID must be provided',
  });
  assert.equal(await setOverride(deps, limited, undefined), { kind: 'invalid', error: 'Invalid data' });
});

test('a device on a hidden receiver, or an unknown one, is not-visible for a limited caller and nothing is stored', async () => {
  assert.equal(await setOverride(deps, limited, { uid: 'B2B2', new_override_oid: '9' }), { kind: 'not-visible' });
  assert.equal(await setOverride(deps, limited, { oid: '2222', new_override_oid: '9' }), { kind: 'not-visible' });
  assert.equal(await setOverride(deps, limited, { uid: 'FFFF', new_override_oid: '9' }), { kind: 'not-visible' });
  assert.equal(h.store.overrides.list(), []);
});

test('a visible device is stored upper-case; a caller who sees all may name unknown devices', async () => {
  const ok = await setOverride(deps, limited, { uid: 'a1a1', new_override_oid: 'abc' });
  assert.equal(ok, {
    kind: 'ok',
    override: { matchKind: 'uid', matchValue: 'A1A1', relatedOid: null, overrideOid: 'ABC' },
  });
  assert.is((await setOverride(deps, principal(['objects']), { uid: 'FFFF', new_override_oid: '9' })).kind, 'ok');
  assert.is(h.store.overrides.list().length, 2);
});

test('the list is for callers who see every receiver only', async () => {
  await setOverride(deps, principal(['objects']), { uid: 'B2B2', new_override_oid: '9' });
  assert.equal(listOverrides(deps, limited), { kind: 'hidden' });
  const all = listOverrides(deps, principal(['objects']));
  assert.is(all.kind, 'ok');
  assert.is(all.kind === 'ok' && all.overrides[0]!.matchValue, 'B2B2');
});

test('a closed store is not-ready, after the body was checked', async () => {
  await h.store.stop();
  assert.equal(await setOverride(deps, limited, { uid: 'XYZ', new_override_oid: '9' }), {
    kind: 'invalid',
    error: 'UID must be hexadecimal',
  });
  assert.equal(await setOverride(deps, limited, { uid: 'A1A1', new_override_oid: '9' }), { kind: 'not-ready' });
});

test.run();
