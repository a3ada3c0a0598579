/**
 * runDeviceCommand (src/services/devices-service.ts) with the real RegistryCommandPort and a
 * recording link, and restartServices (src/services/restart-service.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DeviceCommandRequest } from '../../src/core/device-commands.js';
import { runDeviceCommand } from '../../src/services/devices-service.js';
import { restartServices } from '../../src/services/restart-service.js';
import { createHarness, type Harness } from '../api/harness.js';
import { principal } from './principals.js';

let h: Harness;
let seen: DeviceCommandRequest[];
let deps: Parameters<typeof runDeviceCommand>[0];
test.before.each(async () => {
  h = await createHarness();
  seen = [];
  deps = { devices: h.deps.devices, logger: h.deps.logger };
  const at = h.clock.now();
  for (const [uid, receiverId] of [
    ['A1A1', 1],
    ['B2B2', 2],
  ] as const) {
    const device = await h.store.write.objects.upsertMain({
      uid,
      account: '1111',
      receiverId,
      receiverKind: 'tcp',
      at,
    });
    h.links.set(device.id, {
      execute: async (r) => {
        seen.push(r);
        return { ok: true, device: { uid }, packets: [] };
      },
    });
  }
});
test.after.each(async () => {
  await h.close();
});

const body = (partial_uid: string) => ({ partial_uid, data: '01', response_required: false });

test('without device_control: forbidden, the port is never asked', async () => {
  assert.equal(await runDeviceCommand(deps, principal(['objects']), 'control', body('A1A1')), { kind: 'forbidden' });
  assert.equal(seen, []);
});

test('the request parser decides invalid, uid-missing and data-invalid before the port', async () => {
  const p = principal(['device_control']);
  assert.equal(await runDeviceCommand(deps, p, 'control', []), { kind: 'invalid' });
  assert.equal(await runDeviceCommand(deps, p, 'control', { data: '01', request_id: 'r' }), {
    kind: 'uid-missing',
    fields: { partialUid: '', requestId: 'r' },
  });
  assert.equal(await runDeviceCommand(deps, p, 'config', { partial_uid: 'A1', data: '1' }), {
    kind: 'data-invalid',
    fields: { partialUid: 'A1' },
  });
  assert.equal(seen, []);
});

test('visible receivers and omit_mpass reach the port; a hidden device is NO_OBJECT', async () => {
  const hidden = await runDeviceCommand(deps, principal(['device_control'], [1]), 'control', body('b2b2'));
  assert.is(hidden.kind === 'done' && !hidden.outcome.ok && hidden.outcome.error, 'NO_OBJECT');
  const done = await runDeviceCommand(deps, principal(['device_control', 'omit_mpass'], [1]), 'control', body('a1a1'));
  assert.is(done.kind, 'done');
  assert.is(seen.length, 1);
  assert.is(seen[0]!.partialUid, 'A1A1');
  assert.is(seen[0]!.omitMasterPassword, true);
  assert.equal(seen[0]!.visibleReceivers, [1]);
});

test('a port that throws: logged and thrown (the edges answer E_3)', async () => {
  const broken = { devices: { execute: () => Promise.reject(new Error('link broke')) }, logger: h.deps.logger };
  try {
    await runDeviceCommand(broken, principal(['device_control']), 'control', body('A1A1'));
    assert.unreachable('must throw');
  } catch (err) {
    assert.is((err as Error).message, 'link broke');
  }
  assert.ok(h.logs.some((l) => l.includes('device command failed')));
});

test('restart: forbidden without restart_services; restarts with it; a failure is logged and thrown', async () => {
  const restart = { services: h.deps.services, logger: h.deps.logger };
  assert.equal(await restartServices(restart, principal(['settings', 'users'])), { kind: 'forbidden' });
  assert.is(h.restarts.count, 0);
  assert.equal(await restartServices(restart, principal(['restart_services'])), { kind: 'ok' });
  assert.is(h.restarts.count, 1);
  h.restarts.fail = new Error('port taken');
  try {
    await restartServices(restart, principal(['restart_services']));
    assert.unreachable('must throw');
  } catch (err) {
    assert.is((err as Error).message, 'port taken');
  }
  assert.ok(h.logs.some((l) => l.includes('restart failed')));
});

test.run();
