import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AtLineSplitter, MAX_LINE } from '../../../src/protocols/at/lines.js';
import {
  fields,
  finalResult,
  infoText,
  isSolicitedCreg,
  isUrcLine,
  parseClip,
  parseCmglHeader,
  parseCmgrHeader,
  parseCmti,
  parseCreg,
  parseCsq,
} from '../../../src/protocols/at/results.js';

test('lines split on CR and LF across chunks; empty lines dropped; an over-long line is dropped and counted', () => {
  const s = new AtLineSplitter();
  assert.equal(s.push(Buffer.from('\r\nOK\r\n\r\n+CS')), ['OK']);
  assert.equal(s.push(Buffer.from('Q: 20,99\r\nAT\r')), ['+CSQ: 20,99', 'AT']);
  assert.equal(s.push(Buffer.from('x'.repeat(MAX_LINE + 10))), []);
  assert.equal(s.push(Buffer.from('yyy\r\nOK\r\n')), ['OK']);
  assert.is(s.overlong, 1);
});

test('final result codes', () => {
  assert.equal(finalResult('OK'), { ok: true, line: 'OK' });
  assert.equal(finalResult('+CME ERROR: 11'), { ok: false, line: '+CME ERROR: 11', kind: 'cme', code: 11, text: '11' });
  assert.equal(finalResult('+CMS ERROR: 321'), {
    ok: false,
    line: '+CMS ERROR: 321',
    kind: 'cms',
    code: 321,
    text: '321',
  });
  assert.equal(finalResult('+CME ERROR: SIM PIN required'), {
    ok: false,
    line: '+CME ERROR: SIM PIN required',
    kind: 'cme',
    code: null,
    text: 'SIM PIN required',
  });
  assert.is(finalResult('ERROR')?.ok, false);
  assert.is(finalResult('NO CARRIER')?.ok, false);
  assert.is(finalResult('+CSQ: 1,2'), null);
  assert.is(finalResult('OKAY'), null);
});

test('URCs and information text', () => {
  for (const urc of [
    '+CMTI: "SM",3',
    'RING',
    '+CLIP: "+3706",145',
    '+CREG: 1',
    '^RSSI:12',
    '^BOOT:1,0,0,0',
    '^MODE:5,4',
    'RDY',
    '+CPIN: READY',
  ]) {
    assert.ok(isUrcLine(urc), urc);
  }
  for (const info of ['356938035643809', 'SIMCOM_Ltd', '+CSQ: 20,99', '07917283010010F5'])
    assert.not.ok(isUrcLine(info), info);
});

test('answers and URCs parsed', () => {
  assert.equal(fields('+CMGR: 0,,25', '+CMGR'), ['0', '', '25']);
  assert.equal(fields('+CLIP: "+37060000000",145,"",,"",0', '+CLIP'), ['+37060000000', '145', '', '', '', '0']);
  assert.equal(parseCmti('+CMTI: "SM",0'), { storage: 'SM', index: 0 });
  assert.equal(parseCmti('+CMTI: "ME",12'), { storage: 'ME', index: 12 });
  assert.is(parseCmti('+CMTI: "SM"'), null);
  assert.equal(parseClip('+CLIP: "37060000000",145'), { number: '+37060000000', type: 145 });
  assert.equal(parseClip('+CLIP: "860000000",129,"",,"",0'), { number: '860000000', type: 129 });
  assert.equal(parseCsq('+CSQ: 20,99'), { csq: 20, rssiDbm: -73 });
  assert.equal(parseCsq('+CSQ: 99,99'), { csq: 99, rssiDbm: null });
  assert.is(parseCsq('+CSQ: 40,99'), null);
  assert.equal(parseCreg('+CREG: 0,5', true), { stat: 5, registered: true });
  assert.equal(parseCreg('+CREG: 2', false), { stat: 2, registered: false });
  assert.ok(isSolicitedCreg('+CREG: 2,1,"00C3","1234"'));
  assert.not.ok(isSolicitedCreg('+CREG: 1,"00C3","1234"'));
  assert.not.ok(isSolicitedCreg('+CREG: 1'));
  assert.equal(parseCmgrHeader('+CMGR: 1,,30'), { stat: 1 });
  assert.equal(parseCmglHeader('+CMGL: 0,1,,30'), { index: 0, stat: 1 });
  assert.is(infoText(['+CGSN: "356938035643809"'], '+CGSN'), '356938035643809');
  assert.is(infoText(['356938035643809'], '+CGSN'), '356938035643809');
});

test.run();
