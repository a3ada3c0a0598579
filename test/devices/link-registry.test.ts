import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import type { DeviceCommandRequest } from '../../src/core/device-commands.js';
import { silentLogger } from '../../src/core/logger.js';
import { LinkRegistry } from '../../src/devices/link-registry.js';
import { decodeLinkBody, encodeResponse } from '../../src/protocols/device-link/codec.js';
import { Dc09Framer } from '../../src/protocols/dc09/frame.js';
import { FakeTimers, flush } from '../protocols/device-link/fake-timers.js';

const objects = new Map([[7, { uid: '00A1B2C3D4', hwId: 'HW-7', account: '1234' }]]);

function registry(timers = new FakeTimers()) {
  return new LinkRegistry({
    objects: { get: (id) => objects.get(id) ?? null },
    overrides: { resolve: (device) => (device.uid === '00A1B2C3D4' ? null : 'FFFF') },
    clock: new ManualClock(),
    logger: silentLogger,
    timers,
    timeoutMs: 1000,
  });
}

/** A send() that records the frames' decoded sequence numbers. */
function wire() {
  const sent: number[] = [];
  const framer = new Dc09Framer();
  const send = (frame: Buffer): boolean => {
    for (const item of framer.push(frame)) {
      if (item.kind !== 'frame') continue;
      const m = decodeLinkBody(item.body, null);
      if (!('error' in m)) sent.push(m.seq);
    }
    return true;
  };
  return { sent, send };
}

const request: DeviceCommandRequest = {
  kind: 'control',
  partialUid: 'C3D4',
  data: Buffer.from([1]),
  responseRequired: true,
  omitMasterPassword: false,
  visibleReceivers: null,
};

function reply(seq: number) {
  const frame = encodeResponse({
    seq,
    timestamp: null,
    packetNumber: 1,
    packetCount: 1,
    status: 'OK',
    data: Buffer.from([0xaa]),
  });
  const body = new Dc09Framer().push(frame)[0]!;
  const m = decodeLinkBody((body as { body: Buffer }).body, null);
  if ('error' in m) throw new Error('bad test frame');
  return m;
}

test('an attached link answers with the identity the store knows at answer time', async () => {
  const links = registry();
  const { sent, send } = wire();
  const commander = links.attach({ objectId: 7, uid: '00A1B2C3D4', send, key: null });
  assert.is(links.get(7), commander);
  const pending = links.get(7)!.execute(request);
  commander.handleMessage(reply(sent[0]!));
  assert.equal(await pending, {
    ok: true,
    device: { uid: '00A1B2C3D4', hwId: 'HW-7', oid: '1234' },
    packets: [Buffer.from([0xaa])],
  });
});

test('a device that reconnects replaces its old link; the old command ends NO_CONNECTION', async () => {
  const links = registry();
  const old = links.attach({ objectId: 7, uid: '00A1B2C3D4', send: wire().send, key: null });
  const pending = old.execute(request);
  const fresh = links.attach({ objectId: 7, uid: '00A1B2C3D4', send: wire().send, key: null });
  assert.equal(await pending, {
    ok: false,
    error: 'NO_CONNECTION',
    device: { uid: '00A1B2C3D4', hwId: 'HW-7', oid: '1234' },
  });
  assert.is(links.get(7), fresh);
  assert.is(links.size, 1);
});

test('detaching the old link after a reconnect leaves the new one in place', () => {
  const links = registry();
  const old = links.attach({ objectId: 7, uid: '00A1B2C3D4', send: wire().send, key: null });
  const fresh = links.attach({ objectId: 7, uid: '00A1B2C3D4', send: wire().send, key: null });
  links.detach(7, old);
  assert.is(links.get(7), fresh);
  links.detach(7, fresh);
  assert.is(links.get(7), undefined);
});

test('detach mid-command fails it NO_CONNECTION at once, queued ones too', async () => {
  const links = registry();
  const commander = links.attach({ objectId: 7, uid: '00A1B2C3D4', send: wire().send, key: null });
  const first = commander.execute(request);
  const second = commander.execute(request);
  links.detach(7, commander);
  const outcomes = await Promise.all([first, second]);
  assert.equal(
    outcomes.map((o) => !o.ok && o.error),
    ['NO_CONNECTION', 'NO_CONNECTION'],
  );
});

test('the injected deadline ends an unanswered command with NO_RESPONSE', async () => {
  const timers = new FakeTimers();
  const links = registry(timers);
  const commander = links.attach({ objectId: 7, uid: '00A1B2C3D4', send: wire().send, key: null });
  let settled = false;
  const pending = commander.execute(request).finally(() => (settled = true));
  timers.advance(999);
  await flush();
  assert.is(settled, false, 'not before the deadline');
  timers.advance(1);
  const outcome = await pending;
  assert.equal(!outcome.ok && [outcome.error, outcome.message], ['NO_RESPONSE', 'no device reply within the deadline']);
});

test('an unknown object still answers with the UID its HELLO gave; no oid for an empty account', async () => {
  const links = registry();
  objects.set(8, { uid: '00EEEE0001', hwId: null, account: '' } as never);
  const a = links.attach({ objectId: 8, uid: '00EEEE0001', send: () => false, key: null });
  const b = links.attach({ objectId: 9, uid: '00EEEE0002', send: () => false, key: null });
  assert.equal(await a.execute(request), {
    ok: false,
    error: 'NO_CONNECTION',
    device: { uid: '00EEEE0001', oid: 'FFFF' },
  });
  assert.equal(await b.execute(request), { ok: false, error: 'NO_CONNECTION', device: { uid: '00EEEE0002' } });
});

test('the deadline defaults to the contract 10 s', () => {
  const links = new LinkRegistry({ objects: { get: () => null }, clock: new ManualClock(), logger: silentLogger });
  assert.is(links.timeoutMs, 10_000);
});

test.run();
