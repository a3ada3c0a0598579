/**
 * The version-2 handshake example of docs/device-link.md §6.2, byte for byte: HELLO, CHAL, PROOF,
 * the session key, the sealed WELCOME, VL-CMD and VL-RSP. Anyone can check an implementation
 * against these (fixed nonces and IVs; the device key is the 32 ASCII bytes below).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  decodeLinkBody,
  encodeChallenge,
  encodeCommand,
  encodeHello,
  encodeProof,
  encodeResponse,
  encodeWelcome,
} from '../../../src/protocols/device-link/codec.js';
import { deriveSessionKey, deviceProof, gatewayProof } from '../../../src/protocols/device-link/link-auth.js';
import { EXAMPLE_TIME as T, bodyOf } from './examples.js';

export const EXAMPLE_DEVICE_KEY = Buffer.from('VigilExampleDeviceKey-0123456789', 'latin1');
const DN = '000102030405060708090A0B0C0D0E0F';
const GN = 'F0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF';
const TRANSCRIPT = { uid: '0123456789ABCDEF', account: '1234', deviceNonce: DN, gatewayNonce: GN };
const counting =
  (start: number) =>
  (n: number): Buffer =>
    Buffer.from(Array.from({ length: n }, (_, i) => start + i));

test('HELLO, CHAL and PROOF of the documented handshake', () => {
  const hello = encodeHello({
    seq: 1,
    timestamp: T,
    version: 2,
    uid: '0123456789ABCDEF',
    hwId: 'VGL-AX1',
    firmware: '2.4.1',
    account: '1234',
    nonce: DN,
  });
  assert.is(
    hello.toString('latin1'),
    '\n97B3006F"VL-HELLO"0001#1234[V2|U0123456789ABCDEF|HVGL-AX1|F2.4.1|N000102030405060708090A0B0C0D0E0F]_10:30:00,01-15-2026\r',
  );
  assert.is(
    encodeChallenge({ seq: 1, timestamp: T, nonce: GN }).toString('latin1'),
    '\n40E50044"VL-CHAL"0001[GF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF]_10:30:00,01-15-2026\r',
  );
  assert.is(
    deviceProof(EXAMPLE_DEVICE_KEY, TRANSCRIPT),
    '24EC0FD02859C81E8FD45CBF5CCD14FB56864E4170A8ADE8C7EB011B136CBB44',
  );
  assert.is(
    encodeProof({
      seq: 1,
      timestamp: T,
      proof: '24EC0FD02859C81E8FD45CBF5CCD14FB56864E4170A8ADE8C7EB011B136CBB44',
    }).toString('latin1'),
    '\nF4590065"VL-PROOF"0001[P24EC0FD02859C81E8FD45CBF5CCD14FB56864E4170A8ADE8C7EB011B136CBB44]_10:30:00,01-15-2026\r',
  );
});

test('session key, sealed WELCOME with the gateway proof, sealed VL-CMD and VL-RSP', () => {
  const session = deriveSessionKey(EXAMPLE_DEVICE_KEY, TRANSCRIPT);
  assert.is(
    session.bytes.toString('hex').toUpperCase(),
    '555CA8BA831CB7E6B796717AFA5EF2D8FB5330DD1639C0A7EB3530275E1E4B76',
  );
  assert.is(
    gatewayProof(EXAMPLE_DEVICE_KEY, TRANSCRIPT),
    '0797729B5ACDEACCF82F4A02516212C1CC0B2DF6D99204D9B90B08BB410C55DF',
  );
  const welcome = encodeWelcome(
    { seq: 1, timestamp: T, version: 2, proof: '0797729B5ACDEACCF82F4A02516212C1CC0B2DF6D99204D9B90B08BB410C55DF' },
    { key: session, randomBytes: counting(0xa0) },
  );
  assert.is(
    welcome.toString('latin1'),
    '\nD90A00FC"*VL-WELCOME"0001[A0A1A2A3A4A5A6A7A8A9AAAB474B62C5683D28BBC3C30C80034E68AAE2134F148821CD401DF2DBA43A1471EB88323B90F8A7D980D12BA2E1887022ABBA3801703EFC6262365F835151615F57B6757AD2B2F94A3F8872EFE81CDE88E0AD0EDDBC5664B416427B24EF82C263DCD206242923ED18E5CF\r',
  );
  const cmd = encodeCommand(
    {
      kind: 'control',
      seq: 42,
      timestamp: T,
      auth: { mode: 'code', code: '1234' },
      replyWanted: true,
      data: Buffer.from('0102AB', 'hex'),
    },
    { key: session, randomBytes: counting(0xb0) },
  );
  assert.is(
    cmd.toString('latin1'),
    '\n2516009A"*VL-CMD"0042[B0B1B2B3B4B5B6B7B8B9BABB0EECBD4FE39D42A665D30FFDF7803076578754CA86C07C09CA31B2D0229B21CBC0715FFA00F48AFEC768FD4F9AC5D42600C20E66586411E633C6\r',
  );
  const rsp = encodeResponse(
    { seq: 42, timestamp: T, packetNumber: 1, packetCount: 2, status: 'OK', data: Buffer.from('A1B2', 'hex') },
    { key: session, randomBytes: counting(0xc0) },
  );
  assert.is(
    rsp.toString('latin1'),
    '\n17C2008E"*VL-RSP"0042[C0C1C2C3C4C5C6C7C8C9CACBADBB650EC782A85B71C24BAAD6830E7954E34B3C9BA45D64701419904A201FD31C016197D0D406217BE7561ED59BE55B28387110\r',
  );
  const opened = decodeLinkBody(bodyOf(cmd), session);
  assert.equal(!('error' in opened) && opened.type === 'command' && opened.auth, { mode: 'code', code: '1234' });
});

test('a sealed message whose header or ciphertext was changed does not open', () => {
  const session = deriveSessionKey(EXAMPLE_DEVICE_KEY, TRANSCRIPT);
  const body = bodyOf(
    Buffer.from(
      '\n2516009A"*VL-CMD"0042[B0B1B2B3B4B5B6B7B8B9BABB0EECBD4FE39D42A665D30FFDF7803076578754CA86C07C09CA31B2D0229B21CBC0715FFA00F48AFEC768FD4F9AC5D42600C20E66586411E633C6\r',
      'latin1',
    ),
  ).toString('latin1');
  assert.is(
    (decodeLinkBody(Buffer.from(body.replace('0042', '0043'), 'latin1'), session) as { error?: string }).error,
    'crypto',
  );
  const flipped = body.slice(0, 40) + (body[40] === '0' ? '1' : '0') + body.slice(41);
  assert.is((decodeLinkBody(Buffer.from(flipped, 'latin1'), session) as { error?: string }).error, 'crypto');
});

test.run();
