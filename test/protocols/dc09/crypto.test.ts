import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../../src/core/errors.js';
import {
  decryptBlocks,
  decryptPayload,
  encryptPayload,
  parseKey,
  receiverPasswordKey,
} from '../../../src/protocols/dc09/crypto.js';
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { openSealed } from '../../../src/protocols/dc09/message.js';
import { aesHex, prng, zeroBytes } from './fixtures.js';

function throwsSettings(fn: () => unknown): void {
  try {
    fn();
    assert.unreachable('should throw');
  } catch (err) {
    assert.ok(isVigilError(err, 'INVALID_SETTINGS'), String(err));
  }
}

test('parseKey takes 16, 24 and 32 ASCII characters as the key bytes', () => {
  assert.equal(parseKey('ABCDEFGHIJKLMNOP'), Buffer.from('ABCDEFGHIJKLMNOP'));
  assert.is(parseKey('ABCDEFGHIJKLMNOPQRSTUVWX').length, 24);
  assert.equal(parseKey('ABCDEFGHIJKLMNOPQRSTUVWXYZ012345'), Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZ012345'));
});

test('parseKey decodes 32, 48 and 64 hex digits (either case)', () => {
  assert.equal(
    parseKey('000102030405060708090a0B0c0D0e0F'),
    Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]),
  );
  assert.is(parseKey('00'.repeat(24)).length, 24);
  assert.is(parseKey('ff'.repeat(32)).length, 32);
});

test('a 32-character all-hex key is read as hex unless ascii is forced', () => {
  const text = 'ABCDEF0123456789ABCDEF0123456789';
  assert.is(parseKey(text).length, 16);
  assert.equal(parseKey(text, 'ascii'), Buffer.from(text));
  assert.is(parseKey('ABCDEF0123456789', 'ascii').length, 16);
  throwsSettings(() => parseKey('ABCDEFGHIJKLMNOP', 'hex'));
});

test('parseKey refuses other lengths and non-hex 48/64 character keys', () => {
  for (const bad of ['', 'short', 'A'.repeat(15), 'A'.repeat(17), 'Z'.repeat(48), 'Z'.repeat(64), 'A'.repeat(33)]) {
    throwsSettings(() => parseKey(bad));
  }
});

test('a 16-character receiver password is the AES-128 key itself', () => {
  assert.equal(receiverPasswordKey('0123456789abcdef'), Buffer.from('0123456789abcdef'));
});

test('a 6-character receiver password becomes the first 16 bytes of its SHA-256 (Vigil rule)', () => {
  assert.is(receiverPasswordKey('123456').toString('hex'), '8d969eef6ecad3c29a3a629280e686cf');
});

test('receiver passwords of other lengths are refused', () => {
  for (const bad of ['', '12345', '1234567', 'A'.repeat(15), 'A'.repeat(17), 'ABCDEFGHIJKLMNOé'])
    throwsSettings(() => receiverPasswordKey(bad));
});

test('encryptPayload is AES-CBC with a zero IV over pad + "|" + text, in upper-case hex', () => {
  const key = Buffer.from('0123456789ABCDEF');
  const plain = ']_12:00:00,01-01-2026'; // 21 chars: 1 + 21 = 22, pad to 32 with 10 characters
  const expected = aesHex(`${'!'.repeat(10)}|${plain}`, key);
  assert.is(encryptPayload(plain, key, zeroBytes), expected);
});

test("the long-lived block contexts give exactly OpenSSL's AES-CBC, keys interleaved, 1 to 40 blocks, both ways", () => {
  const rnd = prng(11);
  const random = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => Math.floor(rnd() * 256)));
  const keys = [random(16), random(24), random(32), random(16)];
  const name = (key: Buffer): string => `aes-${key.length * 8}-cbc`;
  for (let round = 0; round < 200; round++) {
    const key = keys[round % keys.length]!;
    const blocks = 1 + (round % 40);
    // Decryption: any ciphertext of whole blocks, as OpenSSL decrypts it with a zero IV.
    const cipherText = random(blocks * 16);
    const reference = createDecipheriv(name(key), key, Buffer.alloc(16)).setAutoPadding(false);
    const expected = Buffer.concat([reference.update(cipherText), reference.final()]);
    assert.equal(decryptBlocks(cipherText.toString('hex'), key), expected, `decrypt round ${round}`);
    // Encryption: the pad is random, so check against OpenSSL over the plaintext we decrypt back.
    const hex = encryptPayload('x'.repeat(round % 50), key);
    const plain = decryptBlocks(hex, key)!;
    const again = createCipheriv(name(key), key, Buffer.alloc(16)).setAutoPadding(false);
    assert.is(
      Buffer.concat([again.update(plain), again.final()])
        .toString('hex')
        .toUpperCase(),
      hex,
      `encrypt round ${round}`,
    );
  }
});

test('two ACK pads in a row differ (the pooled randomness is never handed out twice)', () => {
  const key = Buffer.from('0123456789ABCDEF');
  const pads = new Set<string>();
  for (let i = 0; i < 2000; i++)
    pads.add(decryptBlocks(encryptPayload('A', key), key)!.toString('latin1').split('|')[0]!);
  assert.ok(pads.size > 1990, `only ${pads.size} distinct pads of 14 characters in 2,000`);
});

test('the pad is never empty: 15 characters of text get a whole block of pad', () => {
  const key = Buffer.from('0123456789ABCDEF');
  const hex = encryptPayload('A'.repeat(15), key, zeroBytes);
  assert.is(hex.length, 64);
  assert.is(decryptBlocks(hex, key)!.toString('latin1'), `${'!'.repeat(16)}|${'A'.repeat(15)}`);
});

test('round trip with 16, 24 and 32-byte keys; pad characters avoid "|", "[" and "]"', () => {
  const rnd = prng(3);
  const random = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => Math.floor(rnd() * 256)));
  for (const key of [parseKey('ABCDEFGHIJKLMNOP'), parseKey('ABCDEFGHIJKLMNOPQRSTUVWX'), parseKey('ab'.repeat(32))]) {
    for (let len = 0; len < 40; len++) {
      const text = `#1234|N${'x'.repeat(len)}]_12:00:00,01-01-2026`;
      const hex = encryptPayload(text, key, random);
      assert.ok(/^[0-9A-F]+$/.test(hex) && hex.length % 32 === 0);
      assert.is(decryptPayload(hex, key), text);
      const pad = decryptBlocks(hex, key)!.toString('latin1').split('|')[0]!;
      assert.ok(pad.length >= 1 && pad.length <= 16 && !/[|[\]\s]/.test(pad), JSON.stringify(pad));
    }
  }
});

test('decryptPayload returns null for bad hex, partial blocks, bad key sizes and a plaintext without "|"', () => {
  const key = Buffer.from('0123456789ABCDEF');
  const hex = encryptPayload('#1234|Nri1/BA01]_12:00:00,01-01-2026', key, zeroBytes);
  assert.is(decryptPayload(hex, Buffer.from('0123456789ABCDEG')), null); // this wrong key yields no '|'
  assert.is(decryptPayload(hex.slice(0, -2), key), null);
  assert.is(decryptPayload(`${hex.slice(0, -1)}G`, key), null);
  assert.is(decryptPayload('', key), null);
  assert.is(decryptPayload(hex, Buffer.alloc(10)), null);
  assert.is(decryptPayload(aesHex('no bar in this block here.......', key), key), null);
  assert.is(decryptPayload(hex.toLowerCase(), key), '#1234|Nri1/BA01]_12:00:00,01-01-2026');
});

test('a *NULL padded without "|" by another implementation still opens (published test vector)', () => {
  // "*NULL"0000R0L0#AAAB[B4BC...] from pysiaalarm's test suite, key "AAAAAAAAAAAAAAAA": plaintext "ppppppppppp]_18:24:52,07-05-2020".
  const hex = 'B4BC8B40D0E6D959D6BEA78E88CC0B2155741A3C44FBB96D476A3E557CAD64D9';
  const key = Buffer.from('AAAAAAAAAAAAAAAA');
  assert.is(decryptPayload(hex, key), null);
  assert.is(openSealed(hex, key), ']_18:24:52,07-05-2020');
});

test.run();
