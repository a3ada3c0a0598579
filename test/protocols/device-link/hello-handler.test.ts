import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeLinkBody, encodeHello } from '../../../src/protocols/device-link/codec.js';
import { answerHello, type HelloContext } from '../../../src/protocols/device-link/hello-handler.js';
import { EXAMPLES, EXAMPLE_KEY, EXAMPLE_TIME, bodyOf } from './examples.js';

const CTX: HelloContext = { now: EXAMPLE_TIME, key: EXAMPLE_KEY, requireEncryption: false, windowPastS: 40, windowFutureS: 20 };
const HELLO = { seq: 7, timestamp: EXAMPLE_TIME, version: 1, uid: 'ABCDEF012345', hwId: 'VGL-AX1' };

function hello(fields: Partial<typeof HELLO> = {}, key: Buffer | null = null, decodeKey: Buffer | null = EXAMPLE_KEY) {
  return decodeLinkBody(bodyOf(encodeHello({ ...HELLO, ...fields }, { key })), decodeKey);
}

test('a plain HELLO is welcomed in clear, echoing its sequence, with the gateway time', () => {
  const decision = answerHello(hello(), CTX);
  assert.is(decision.action, 'welcome');
  if (decision.action !== 'welcome') return;
  assert.is(decision.reply.toString('latin1'), '\nBE910028"VL-WELCOME"0007[V1]_10:30:00,01-15-2026\r');
  assert.is(decision.sessionKey, null);
  assert.is(decision.hello.uid, 'ABCDEF012345');
});

test('the documented encrypted HELLO is welcomed encrypted and fixes the link key', () => {
  const frame = Buffer.from(EXAMPLES[1]!.frame, 'latin1');
  const decision = answerHello(decodeLinkBody(bodyOf(frame), EXAMPLE_KEY), CTX);
  assert.is(decision.action, 'welcome');
  if (decision.action !== 'welcome') return;
  assert.is(decision.sessionKey, EXAMPLE_KEY);
  assert.equal(decodeLinkBody(bodyOf(decision.reply), EXAMPLE_KEY), {
    type: 'welcome', seq: 1, timestamp: EXAMPLE_TIME, encrypted: true, version: 1,
  });
});

test('a device announcing a newer version is welcomed with version 1', () => {
  const decision = answerHello(hello({ version: 3 }), CTX);
  assert.equal(decision.action === 'welcome' && decision.version, 1);
});

const REFUSALS: ReadonlyArray<[string, () => ReturnType<typeof hello>, Partial<HelloContext>, string]> = [
  ['version 0', () => hello({ version: 0 }), {}, 'VER'],
  ['a plain HELLO when encryption is required', () => hello(), { requireEncryption: true }, 'ENC'],
  ['an encrypted HELLO 41 s old', () => hello({ timestamp: EXAMPLE_TIME - 41_000 }, EXAMPLE_KEY), {}, 'TIME'],
  ['an encrypted HELLO 21 s ahead', () => hello({ timestamp: EXAMPLE_TIME + 21_000 }, EXAMPLE_KEY), {}, 'TIME'],
  ['an encrypted HELLO under another key', () => hello({}, Buffer.from('another-16-byte!')), {}, 'KEY'],
  ['an encrypted HELLO to a receiver without key', () => hello({}, EXAMPLE_KEY, null), {}, 'KEY'],
  ['a malformed HELLO', () => decodeLinkBody(Buffer.from('"VL-HELLO"0007[V1|Unothex]'), null), {}, 'FMT'],
];

for (const [name, input, ctx, reason] of REFUSALS) {
  test(`${name} is refused in clear with ${reason} and the gateway time`, () => {
    const decision = answerHello(input(), { ...CTX, ...ctx });
    assert.is(decision.action, 'refuse');
    if (decision.action !== 'refuse') return;
    assert.is(decision.reason, reason);
    assert.is(decision.reply.toString('latin1').slice(9), `"VL-REFUSE"0007[E${reason}]_10:30:00,01-15-2026\r`);
  });
}

test('an encrypted HELLO exactly 40 s old or 20 s ahead is welcomed', () => {
  for (const offset of [-40_000, 20_000]) {
    assert.is(answerHello(hello({ timestamp: EXAMPLE_TIME + offset }, EXAMPLE_KEY), CTX).action, 'welcome');
  }
});

test('other messages, and a HELLO without readable sequence, are ignored', () => {
  assert.equal(answerHello(decodeLinkBody(Buffer.from('"VL-ACK"0001[]'), null), CTX), { action: 'ignore' });
  assert.equal(answerHello(decodeLinkBody(Buffer.from('"VL-HELLO"01[]'), null), CTX), { action: 'ignore' });
  assert.equal(answerHello(decodeLinkBody(Buffer.from('"NULL"0001[]'), null), CTX), { action: 'ignore' });
});

test.run();
