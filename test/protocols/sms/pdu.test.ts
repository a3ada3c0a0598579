import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeSeptets, encodeSeptets, packSeptets, unpackSeptets } from '../../../src/protocols/sms/gsm7.js';
import { alphabetOf, decodeDeliverPdu } from '../../../src/protocols/sms/pdu.js';
import { encodeDeliverPdus } from '../../../src/protocols/sms/pdu-encode.js';
import { SmsReassembler } from '../../../src/protocols/sms/reassembly.js';

const AT = Date.UTC(2026, 10, 23, 21, 30, 5);

function decoded(hex: string) {
  const r = decodeDeliverPdu(hex);
  if (!r.ok) throw new Error(r.error);
  return r.sms;
}

test('a published SMS-DELIVER: sender, SMSC, zone-corrected timestamp, GSM 7-bit text', () => {
  // The example PDU of the classic SMS PDU tutorial (dreamfabric.com/sms): "hellohello" from 27838890001.
  const sms = decoded('07917283010010F5040BC87238880900F10000993092516195800AE8329BFD4697D9EC37');
  assert.is(sms.smsc, '+27381000015');
  assert.is(sms.sender, '27838890001');
  assert.is(sms.text, 'hellohello');
  assert.is(sms.alphabet, 'gsm7');
  // 99-03-29 15:16:59 at +02:00 (zone octet 0x80 = 8 quarter hours).
  assert.is(sms.sentAt, Date.UTC(1999, 2, 29, 13, 16, 59));
  assert.is(sms.concat, null);
});

test('7-bit text after a user data header starts at the septet boundary (one fill bit after 6 octets)', () => {
  // Hand-built per TS 23.040 §9.2.3.24: UDH 05 00 03 2A 02 01, fill bit, then "hi": 0x68<<1 = D0, 0x69.
  const tpdu = '44' + '0B91' + '7360000000F0' + '00' + '00' + '62113212035000' + '09' + '0500032A0201' + 'D069';
  const sms = decoded('00' + tpdu);
  assert.is(sms.text, 'hi');
  assert.is(sms.sender, '+37060000000');
  assert.equal(sms.concat, { ref: 0x2a, total: 2, seq: 1 });
});

test('extension table characters and the whole default alphabet survive a round trip', () => {
  const text = 'Δ@£$¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./09:;<=>?¡AZÄÖÑÜ§¿azäöñüà {}[]~^|\\€';
  const septets = encodeSeptets(text)!;
  assert.is(decodeSeptets(unpackSeptets(packSeptets(septets), septets.length)), text);
  assert.equal(encodeSeptets('€'), [0x1b, 0x65]);
  // An escape before a septet the extension table lacks shows the default character (TS 23.038 §6.2.1.1).
  assert.is(decodeSeptets([0x1b, 0x41]), 'A');
  assert.is(encodeSeptets('ž'), null);
});

test('UCS-2 and 8-bit user data', () => {
  const [ucs] = encodeDeliverPdus({ sender: '+37060000000', text: 'Signalas: žąsis 🚨', sentAt: AT });
  const sms = decoded(ucs!);
  assert.is(sms.alphabet, 'ucs2');
  assert.is(sms.text, 'Signalas: žąsis 🚨');
  const [bin] = encodeDeliverPdus({ sender: '861234567', text: 'raw\u00ff\u0001', sentAt: AT, alphabet: '8bit' });
  const b = decoded(bin!);
  assert.is(b.alphabet, '8bit');
  assert.is(b.text, 'raw\u00ff\u0001');
  assert.is(b.sender, '861234567');
  assert.is(b.sentAt, AT);
});

test('data coding scheme groups (TS 23.038 §4)', () => {
  assert.is(alphabetOf(0x00), 'gsm7');
  assert.is(alphabetOf(0x04), '8bit');
  assert.is(alphabetOf(0x08), 'ucs2');
  assert.is(alphabetOf(0x18), 'ucs2'); // with message class
  assert.is(alphabetOf(0x48), 'ucs2'); // automatic deletion group
  assert.is(alphabetOf(0xf0), 'gsm7');
  assert.is(alphabetOf(0xf4), '8bit');
  assert.is(alphabetOf(0xe0), 'ucs2');
});

test('a long text becomes parts that reassemble in any order, escape pairs never cut', () => {
  const text = `${'x'.repeat(152)}€${'y'.repeat(200)}`;
  const parts = encodeDeliverPdus({ sender: '+37060000000', text, sentAt: AT, ref: 7 }).map(decoded);
  assert.is(parts.length, 3);
  assert.is(parts[0]!.text, 'x'.repeat(152));
  const r = new SmsReassembler<number>();
  assert.is(r.add({ sender: parts[2]!.sender, concat: parts[2]!.concat!, text: parts[2]!.text, tag: 3 }, 0), null);
  assert.is(r.add({ sender: parts[0]!.sender, concat: parts[0]!.concat!, text: parts[0]!.text, tag: 1 }, 0), null);
  // A duplicate part (the SIM holds it twice) adds its index, not its text.
  assert.is(r.add({ sender: parts[0]!.sender, concat: parts[0]!.concat!, text: parts[0]!.text, tag: 9 }, 0), null);
  const whole = r.add({ sender: parts[1]!.sender, concat: parts[1]!.concat!, text: parts[1]!.text, tag: 2 }, 0)!;
  assert.is(whole.text, text);
  assert.equal(whole.tags, [3, 1, 9, 2]);
  assert.ok(whole.complete);
  assert.is(r.size, 0);
});

test('the same reference from two senders are two messages; an incomplete one expires with its gap marked', () => {
  const r = new SmsReassembler<string>();
  r.add({ sender: 'A', concat: { ref: 1, total: 2, seq: 1 }, text: 'a1', tag: 'a1' }, 0);
  r.add({ sender: 'B', concat: { ref: 1, total: 2, seq: 2 }, text: 'b2', tag: 'b2' }, 10);
  assert.is(r.size, 2);
  assert.equal(r.expire(5, 10), []);
  const [late] = r.expire(10, 10);
  assert.equal(late, { sender: 'A', text: 'a1[part 2 missing]', tags: ['a1'], complete: false });
  assert.ok(r.holds((t) => t === 'b2'));
});

test('malformed PDUs are errors, never throws', () => {
  for (const bad of [
    '',
    'zz',
    '0',
    '00',
    '0791',
    '07917283010010F5',
    '0001000B917306000000F0',
    '07917283010010F5040BC87238880900F1000099309251619580FF',
  ]) {
    assert.not.ok(decodeDeliverPdu(bad).ok, bad);
  }
  // An SMS-SUBMIT (TP-MTI 01) is not a received message.
  assert.not.ok(decodeDeliverPdu('0001000B917306000000F0000003E8329B').ok);
});

test.run();
