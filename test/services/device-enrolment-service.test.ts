import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/logger.js';
import { keyState } from '../../src/devices/device-keys.js';
import {
  ENROLMENT_WINDOW_MS,
  resetDeviceKey,
  type DeviceEnrolmentDeps,
} from '../../src/services/device-enrolment-service.js';
import type { Principal } from '../../src/services/principal.js';

const OBJECTS = [
  { uid: '00AAAA0001', receiverId: 1 },
  { uid: '00BBBB0001', receiverId: 2 },
  { uid: '00CCCC0001', receiverId: 2 },
];

function setup() {
  const resets: Array<[string, number]> = [];
  const clock = new ManualClock(5_000);
  const deps: DeviceEnrolmentDeps = {
    clock,
    logger: silentLogger,
    store: {
      objects: {
        findByPartialUid: (partial, ids) =>
          OBJECTS.filter((o) => o.uid.endsWith(partial) && (!ids || ids.includes(o.receiverId))),
        findByUid: (uid) => OBJECTS.find((o) => o.uid === uid) ?? null,
      },
      deviceKeys: { get: () => null },
      write: {
        deviceKeys: {
          reset: async (uid: string, until: number) => {
            resets.push([uid, until]);
          },
        },
      },
    },
  };
  return {
    service: { resetDeviceKey: (p: Principal, r: Parameters<typeof resetDeviceKey>[2]) => resetDeviceKey(deps, p, r) },
    resets,
  };
}

const who = (scopes: string[], visibleReceivers: number[] | null): Principal => ({
  subject: 'user:7',
  userId: 7,
  scopes: new Set(scopes),
  visibleReceivers,
});

test('an installer with device_control resets one visible device and opens its window', async () => {
  const { service, resets } = setup();
  assert.equal(await service.resetDeviceKey(who(['device_control'], [1]), { partialUid: 'aaaa0001' }), {
    kind: 'done',
    uid: '00AAAA0001',
    enrolUntil: 5_000 + ENROLMENT_WINDOW_MS,
  });
  assert.equal(resets, [['00AAAA0001', 5_000 + ENROLMENT_WINDOW_MS]]);
});

test('without device_control, on another receiver, ambiguous, or an unknown UID for a limited user: nothing is reset', async () => {
  const { service, resets } = setup();
  assert.equal(await service.resetDeviceKey(who(['objects'], null), { partialUid: 'AAAA0001' }), { kind: 'forbidden' });
  assert.equal(await service.resetDeviceKey(who(['device_control'], [1]), { partialUid: 'BBBB0001' }), {
    kind: 'no-object',
  });
  assert.equal(await service.resetDeviceKey(who(['device_control'], [1]), { uid: '00BBBB0001' }), {
    kind: 'no-object',
  });
  assert.equal(await service.resetDeviceKey(who(['device_control'], null), { partialUid: '0001' }), {
    kind: 'no-object',
  });
  assert.equal(await service.resetDeviceKey(who(['device_control'], [1, 2]), { uid: '00DDDD0001' }), {
    kind: 'no-object',
  });
  assert.equal(resets, []);
  assert.is(
    (await service.resetDeviceKey(who(['device_control'], null), { uid: '00dddd0001' })).kind,
    'done',
    'a caller who sees every receiver may open a new UID',
  );
});

test('key state: a key never enrols; a window does; open receivers enrol only UIDs never seen', () => {
  const key = Buffer.alloc(32, 1);
  assert.equal(keyState({ uid: 'A', key, enrolUntil: null, updatedAt: 0 }, true, 10, 'open'), { key, mayEnrol: false });
  assert.equal(keyState({ uid: 'A', key: null, enrolUntil: 20, updatedAt: 0 }, true, 10, 'closed'), {
    key: null,
    mayEnrol: true,
  });
  assert.equal(keyState({ uid: 'A', key: null, enrolUntil: 20, updatedAt: 0 }, true, 20, 'open'), {
    key: null,
    mayEnrol: false,
  });
  assert.equal(
    keyState(null, true, 10, 'open'),
    { key: null, mayEnrol: false },
    'an object from before version 2 needs the reset',
  );
  assert.equal(keyState(null, false, 10, 'open'), { key: null, mayEnrol: true });
  assert.equal(keyState(null, false, 10, 'closed'), { key: null, mayEnrol: false });
});

test.run();
