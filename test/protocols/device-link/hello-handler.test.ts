import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeLinkBody, encodeHello, encodeProof } from '../../../src/protocols/device-link/codec.js';
import {
  answerHello,
  answerProof,
  PROOF_TIMEOUT_MS,
  type DeviceKeyState,
  type HelloContext,
} from '../../../src/protocols/device-link/hello-handler.js';
import { DeviceHandshake, type DeviceKeyring } from '../../../src/sim/link-handshake.js';
import { EXAMPLE_KEY, EXAMPLE_TIME, bodyOf } from './examples.js';

const UID = 'ABCDEF012345';
const DEVICE_KEY = Buffer.alloc(32, 7);
const NONCE = '00112233445566778899AABBCCDDEEFF';
const HELLO = { seq: 7, timestamp: EXAMPLE_TIME, version: 2, uid: UID, hwId: 'VGL-AX1', nonce: NONCE };

function ctx(
  state: DeviceKeyState = { key: DEVICE_KEY, mayEnrol: false },
  over: Partial<HelloContext> = {},
): HelloContext {
  return {
    now: EXAMPLE_TIME,
    key: EXAMPLE_KEY,
    requireEncryption: false,
    windowPastS: 40,
    windowFutureS: 20,
    deviceKey: () => state,
    randomBytes: (n) => Buffer.alloc(n, 0xab),
    ...over,
  };
}

function hello(
  fields: Record<string, unknown> = {},
  key: Buffer | null = null,
  decodeKey: Buffer | null = EXAMPLE_KEY,
) {
  return decodeLinkBody(
    bodyOf(encodeHello({ ...HELLO, ...fields } as Parameters<typeof encodeHello>[0], { key })),
    decodeKey,
  );
}

function device(keyring: DeviceKeyring = new Map([[UID, DEVICE_KEY]])) {
  return new DeviceHandshake({ seq: 7, uid: UID, account: '1234', hwId: 'VGL-AX1', firmware: '2.4.1' }, keyring);
}

/** HELLO -> CHAL -> PROOF -> WELCOME between the reference device and the gateway's pure handlers. */
function handshake(d: DeviceHandshake, state: DeviceKeyState) {
  const helloFrame = d.hello(EXAMPLE_TIME, null);
  const decision = answerHello(decodeLinkBody(bodyOf(helloFrame), null), ctx(state));
  if (decision.action !== 'challenge') return { decision };
  const challenge = d.decode(bodyOf(decision.reply), null);
  if ('error' in challenge || challenge.type !== 'challenge') throw new Error('no challenge');
  const proof = d.proof(challenge, EXAMPLE_TIME);
  if (!proof) return { decision };
  const result = answerProof(decodeLinkBody(bodyOf(proof), null), decision.pending, EXAMPLE_TIME + 10);
  return { decision, result };
}

test('a HELLO of a UID with a key is challenged in clear with a fresh gateway nonce, nothing registered yet', () => {
  const decision = answerHello(hello(), ctx());
  assert.is(decision.action, 'challenge');
  if (decision.action !== 'challenge') return;
  assert.is(decision.reply.toString('latin1').slice(9), `"VL-CHAL"0007[G${'AB'.repeat(16)}]_10:30:00,01-15-2026\r`);
  assert.is(decision.pending.enrolling, false);
  assert.is(decision.pending.expiresAt, EXAMPLE_TIME + PROOF_TIMEOUT_MS);
});

test('the device holding the key proves it; the WELCOME is sealed with the session key and proves the gateway', () => {
  const d = device();
  const { result } = handshake(d, { key: DEVICE_KEY, mayEnrol: false });
  assert.is(result?.action, 'welcome');
  if (result?.action !== 'welcome') return;
  assert.is(result.enrolledKey, null);
  assert.is(result.version, 2);
  assert.ok(result.reply.toString('latin1').includes('"*VL-WELCOME"0007['));
  const welcome = d.decode(bodyOf(result.reply), null);
  assert.ok(!('error' in welcome) && d.welcomed(welcome));
  assert.equal(d.sessionKey!.bytes, result.sessionKey.bytes);
});

test('a stranger naming a known UID without its key is refused AUTH, as a bad_proof conflict', () => {
  const stranger = device(new Map([[UID, Buffer.alloc(32, 9)]]));
  const { result } = handshake(stranger, { key: DEVICE_KEY, mayEnrol: false });
  assert.is(result?.action, 'refuse');
  if (result?.action !== 'refuse') return;
  assert.is(result.reason, 'AUTH');
  assert.equal(result.conflict, { uid: UID, reason: 'bad_proof' });
  assert.is(result.reply.toString('latin1').slice(9), '"VL-REFUSE"0007[EAUTH]_10:30:00,01-15-2026\r');
});

test('a stranger asking to enrol a UID that has a key is refused AUTH (already_enrolled)', () => {
  const { decision } = handshake(device(new Map()), { key: DEVICE_KEY, mayEnrol: false });
  assert.is(decision.action === 'refuse' && decision.conflict?.reason, 'already_enrolled');
});

test('a UID without key that may not enrol is refused AUTH (not_enrolled)', () => {
  const { decision } = handshake(device(new Map()), { key: null, mayEnrol: false });
  assert.is(decision.action === 'refuse' && decision.conflict?.reason, 'not_enrolled');
});

test('enrolment: both sides derive the same new key; the device keeps it only after the WELCOME', () => {
  const keyring: DeviceKeyring = new Map();
  const d = device(keyring);
  const { decision, result } = handshake(d, { key: null, mayEnrol: true });
  assert.is(decision.action === 'challenge' && decision.pending.enrolling, true);
  assert.is(keyring.size, 0);
  assert.is(result?.action, 'welcome');
  if (result?.action !== 'welcome') return;
  assert.is(result.enrolledKey!.length, 32);
  const welcome = d.decode(bodyOf(result.reply), null);
  assert.ok(!('error' in welcome) && d.welcomed(welcome));
  assert.equal(keyring.get(UID), result.enrolledKey);
});

test('a proof after the deadline, or for another sequence, does not welcome', () => {
  const decision = answerHello(hello(), ctx());
  if (decision.action !== 'challenge') throw new Error('no challenge');
  const proof = decodeLinkBody(bodyOf(encodeProof({ seq: 7, timestamp: null, proof: 'A'.repeat(64) })), null);
  assert.is(answerProof(proof, decision.pending, EXAMPLE_TIME + PROOF_TIMEOUT_MS + 1).action, 'refuse');
  const other = decodeLinkBody(bodyOf(encodeProof({ seq: 8, timestamp: null, proof: 'A'.repeat(64) })), null);
  assert.equal(answerProof(other, decision.pending, EXAMPLE_TIME), { action: 'ignore' });
});

const REFUSALS: ReadonlyArray<[string, () => ReturnType<typeof hello>, Partial<HelloContext>, string]> = [
  ['version 0', () => hello({ version: 0 }), {}, 'VER'],
  ['a version-1 device (no proof in its protocol)', () => hello({ version: 1 }), {}, 'VER'],
  ['a HELLO without nonce', () => hello({ nonce: undefined }), {}, 'FMT'],
  ['a plain HELLO when encryption is required', () => hello(), { requireEncryption: true }, 'ENC'],
  ['an encrypted HELLO 41 s old', () => hello({ timestamp: EXAMPLE_TIME - 41_000 }, EXAMPLE_KEY), {}, 'TIME'],
  ['an encrypted HELLO 21 s ahead', () => hello({ timestamp: EXAMPLE_TIME + 21_000 }, EXAMPLE_KEY), {}, 'TIME'],
  ['an encrypted HELLO under another key', () => hello({}, Buffer.from('another-16-byte!')), {}, 'KEY'],
  ['an encrypted HELLO to a receiver without key', () => hello({}, EXAMPLE_KEY, null), {}, 'KEY'],
  ['a malformed HELLO', () => decodeLinkBody(Buffer.from('"VL-HELLO"0007[V2|Unothex]'), null), {}, 'FMT'],
];

for (const [name, input, over, reason] of REFUSALS) {
  test(`${name} is refused in clear with ${reason} and the gateway time`, () => {
    const decision = answerHello(input(), ctx(undefined, over));
    assert.is(decision.action, 'refuse');
    if (decision.action !== 'refuse') return;
    assert.is(decision.reason, reason);
    assert.is(decision.reply.toString('latin1').slice(9), `"VL-REFUSE"0007[E${reason}]_10:30:00,01-15-2026\r`);
  });
}

test('an encrypted HELLO exactly 40 s old or 20 s ahead is challenged', () => {
  for (const offset of [-40_000, 20_000]) {
    assert.is(answerHello(hello({ timestamp: EXAMPLE_TIME + offset }, EXAMPLE_KEY), ctx()).action, 'challenge');
  }
});

test('other messages, and a HELLO without readable sequence, are ignored', () => {
  assert.equal(answerHello(decodeLinkBody(Buffer.from('"VL-ACK"0001[]'), null), ctx()), { action: 'ignore' });
  assert.equal(answerHello(decodeLinkBody(Buffer.from('"VL-HELLO"01[]'), null), ctx()), { action: 'ignore' });
  assert.equal(answerHello(decodeLinkBody(Buffer.from('"NULL"0001[]'), null), ctx()), { action: 'ignore' });
});

test.run();
