import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../../src/core/clock.js';
import type { DeviceCommandRequest } from '../../../src/core/device-commands.js';
import { decodeLinkBody, encodeLinkMessage } from '../../../src/protocols/device-link/codec.js';
import { LinkCommander } from '../../../src/protocols/device-link/link-commander.js';
import type { DecodedLinkMessage, ResponseStatus } from '../../../src/protocols/device-link/messages.js';
import { EXAMPLE_KEY, EXAMPLE_TIME, bodyOf, zeroPad } from './examples.js';
import { FakeTimers, flush } from './fake-timers.js';

const DEVICE = { uid: '0123456789ABCDEF', hwId: 'VGL-AX1', oid: '1234' };

function request(overrides: Partial<DeviceCommandRequest> = {}): DeviceCommandRequest {
  return {
    kind: 'control',
    partialUid: 'ABCDEF',
    data: Buffer.from('0102AB', 'hex'),
    responseRequired: true,
    omitMasterPassword: false,
    visibleReceivers: null,
    ...overrides,
  };
}

function setup(key: Buffer | null = null, sendOk = true) {
  const timers = new FakeTimers();
  const sent: Buffer[] = [];
  const commander = new LinkCommander({
    send: (frame) => {
      sent.push(frame);
      return sendOk;
    },
    key,
    identity: () => DEVICE,
    clock: new ManualClock(EXAMPLE_TIME),
    timers,
    randomBytes: zeroPad,
    firstSeq: 42,
  });
  const decodeSent = (i: number) => decodeLinkBody(bodyOf(sent[i]!), key) as DecodedLinkMessage;
  const reply = (
    seq: number,
    n: number,
    c: number,
    status: ResponseStatus = 'OK',
    hex = '',
    encrypted = key !== null,
  ) =>
    commander.handleMessage(
      decodeLinkBody(
        bodyOf(
          encodeLinkMessage(
            {
              type: 'response',
              seq,
              timestamp: EXAMPLE_TIME,
              packetNumber: n,
              packetCount: c,
              status,
              data: Buffer.from(hex, 'hex'),
            },
            { key: encrypted ? key : null },
          ),
        ),
        key,
      ) as DecodedLinkMessage,
    );
  return { timers, sent, commander, decodeSent, reply };
}

test('a control command goes out as a VL-CMD and two reply packets come back in order', async () => {
  const { sent, commander, reply } = setup();
  const outcome = commander.execute(request());
  assert.is(sent[0]!.toString('latin1'), '\n27BB002F"VL-CMD"0042[AN|Q1|D0102AB]_10:30:00,01-15-2026\r');
  assert.ok(reply(42, 1, 2, 'OK', 'A1B2'));
  assert.ok(reply(42, 2, 2, 'OK', 'C3'));
  assert.equal(await outcome, {
    ok: true,
    device: DEVICE,
    packets: [Buffer.from('A1B2', 'hex'), Buffer.from('C3', 'hex')],
  });
});

test('on an encrypted link the command is encrypted and a plain reply is ignored', async () => {
  const { commander, decodeSent, reply } = setup(EXAMPLE_KEY);
  const outcome = commander.execute(request({ kind: 'config', omitMasterPassword: true }));
  const sentMessage = decodeSent(0);
  assert.is(sentMessage.encrypted, true);
  assert.equal(sentMessage.type === 'command' && sentMessage.auth, { mode: 'omit' });
  assert.not.ok(reply(42, 1, 1, 'OK', 'FF', false));
  assert.ok(reply(42, 1, 1, 'OK', 'FF', true));
  assert.equal(await outcome, { ok: true, device: DEVICE, packets: [Buffer.from([0xff])] });
});

test('a reply to another request id is ignored', async () => {
  const { commander, reply } = setup();
  const outcome = commander.execute(request());
  assert.not.ok(reply(41, 1, 1, 'OK', '00'));
  assert.ok(reply(42, 1, 1, 'MPASS'));
  assert.equal(await outcome, { ok: false, error: 'MPASS_IS_INCORRECT', device: DEVICE });
});

test('no reply within 10 s is NO_RESPONSE, and a late reply is ignored', async () => {
  const { timers, commander, reply } = setup();
  const outcome = commander.execute(request());
  timers.advance(9_999);
  await flush();
  timers.advance(1);
  assert.equal(await outcome, {
    ok: false,
    error: 'NO_RESPONSE',
    device: DEVICE,
    message: 'no device reply within the deadline',
  });
  assert.not.ok(reply(42, 1, 1, 'OK'));
});

test('without response_required the device is asked for its status only and no data is returned', async () => {
  const { commander, decodeSent, reply } = setup();
  const outcome = commander.execute(request({ responseRequired: false }));
  assert.is((decodeSent(0) as { replyWanted: boolean }).replyWanted, false);
  reply(42, 1, 1, 'OK', 'AA');
  assert.equal(await outcome, { ok: true, device: DEVICE, packets: [] });
});

test('without response_required a silent device still counts as configuration sent', async () => {
  const { timers, commander } = setup();
  const outcome = commander.execute(request({ kind: 'config', responseRequired: false }));
  timers.advance(10_000);
  assert.equal(await outcome, { ok: true, device: DEVICE, packets: [] });
});

test('commands to one device are serialised with consecutive request ids', async () => {
  const { sent, commander, decodeSent, reply } = setup();
  const first = commander.execute(request());
  const second = commander.execute(request({ data: Buffer.from([7]) }));
  assert.is(sent.length, 1);
  reply(42, 1, 1, 'OK', '01');
  await first;
  assert.is(sent.length, 2);
  assert.is(decodeSent(1).seq, 43);
  reply(43, 1, 1, 'BAD');
  assert.equal(await second, { ok: false, error: 'BAD_DATA', device: DEVICE });
});

test('a disconnect fails the command in flight and the queued ones with NO_CONNECTION, and later ones too', async () => {
  const { sent, commander } = setup();
  const a = commander.execute(request());
  const b = commander.execute(request());
  commander.close();
  const noConnection = { ok: false, error: 'NO_CONNECTION', device: DEVICE };
  assert.equal(await Promise.all([a, b]), [noConnection, noConnection]);
  assert.equal(await commander.execute(request()), noConnection);
  assert.is(sent.length, 1);
});

test('a frame that cannot be written is NO_CONNECTION', async () => {
  const { commander } = setup(null, false);
  assert.equal(await commander.execute(request()), { ok: false, error: 'NO_CONNECTION', device: DEVICE });
});

test('data above the limit is BAD_DATA and an over-long access code MPASS_IS_INCORRECT, nothing sent', async () => {
  const { sent, commander } = setup();
  assert.equal(await commander.execute(request({ data: Buffer.alloc(901) })), {
    ok: false,
    error: 'BAD_DATA',
    device: DEVICE,
    message: 'data longer than 900 bytes',
  });
  assert.equal(await commander.execute(request({ cloudAccessCode: 'x'.repeat(65) })), {
    ok: false,
    error: 'MPASS_IS_INCORRECT',
    device: DEVICE,
  });
  assert.is(sent.length, 0);
});

test('the master code is never sent on a link without a key: NO_CONNECTION, nothing written', async () => {
  const { sent, commander } = setup();
  assert.equal(await commander.execute(request({ cloudAccessCode: '1234' })), {
    ok: false,
    error: 'NO_CONNECTION',
    device: DEVICE,
    message: 'the link is not encrypted',
  });
  assert.is(sent.length, 0);
});

test('on a keyed link the access code goes inside the ciphertext', async () => {
  const { sent, commander, decodeSent } = setup(EXAMPLE_KEY);
  void commander.execute(request({ cloudAccessCode: '1234' }));
  assert.not.ok(sent[0]!.toString('latin1').includes('31323334'));
  assert.equal((decodeSent(0) as { auth: unknown }).auth, { mode: 'code', code: '1234' });
});

test('an empty access code is sent as N, omit_mpass as O even when a code is given', () => {
  const { commander, decodeSent, reply } = setup();
  void commander.execute(request({ cloudAccessCode: '' }));
  reply(42, 1, 1);
  void commander.execute(request({ omitMasterPassword: true, cloudAccessCode: '1234' }));
  assert.equal((decodeSent(0) as { auth: unknown }).auth, { mode: 'none' });
  assert.equal((decodeSent(1) as { auth: unknown }).auth, { mode: 'omit' });
});

test('time sync sends VL-TIME with the clock and resolves on the matching VL-ACK', async () => {
  const { commander, decodeSent, timers } = setup();
  const synced = commander.syncTime(60);
  const sentTime = decodeSent(0);
  assert.equal(sentTime, { type: 'time', seq: 42, timestamp: EXAMPLE_TIME, encrypted: false, utcOffsetMinutes: 60 });
  assert.ok(commander.handleMessage({ type: 'time-ack', seq: 42, timestamp: null, encrypted: false }));
  assert.is(await synced, true);
  const unanswered = commander.syncTime();
  timers.advance(10_000);
  assert.is(await unanswered, false);
});

test.run();
