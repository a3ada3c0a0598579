import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { crc16Arc, crcHex } from '../../../src/protocols/dc09/crc.js';
import { bitwiseCrc, prng } from './fixtures.js';

test('CRC-16/ARC of "123456789" is the catalogue check value 0xBB3D', () => {
  assert.is(crc16Arc(Buffer.from('123456789')), 0xbb3d);
});

test('the CRC of an empty body is 0000', () => {
  assert.is(crcHex(Buffer.alloc(0)), '0000');
});

test('published NAK examples carry the CRC the codec computes', () => {
  // Frames "\n3C830025..." and "\nE5630025..." as printed by independent DC-09 implementations.
  assert.is(crcHex(Buffer.from('"NAK"0000R0L0A0[]_16:09:09,04-14-2015')), '3C83');
  assert.is(crcHex(Buffer.from('"NAK"0000R0L0A0[]_10:10:18,07-30-2024')), 'E563');
});

test('frames captured from real panels carry the CRC the codec computes', () => {
  const captured: Array<[string, string]> = [
    ['3F60', '"SIA-DCS"0001L0#51449[#51449|Nri0000/LR]_21:26:19,12-20-2023'],
    ['9982', '"ADM-CID"1937R15L1#21401[#21401|1602 00 000]_20:59:59,02-20-2024'],
    ['9EC4', '"ADM-CID"0001L0#1002[#1002|1602 00 001]'],
    [
      '60AB',
      '"*SIA-DCS"5994L0#AAA[5AB718E008C616BF16F6468033A11326B0F7546CAB230910BCA10E4DEBA42283C436E4F8EFF50931070DDE36D5BB5F0C',
    ],
  ];
  for (const [crc, body] of captured) assert.is(crcHex(Buffer.from(body, 'latin1')), crc, body);
});

test('the table CRC equals a bit-by-bit CRC on random data', () => {
  const rnd = prng(9);
  for (let n = 0; n < 200; n++) {
    const data = Buffer.alloc(Math.floor(rnd() * 300));
    for (let i = 0; i < data.length; i++) data[i] = Math.floor(rnd() * 256);
    assert.is(crc16Arc(data), bitwiseCrc(data));
  }
});

test.run();
