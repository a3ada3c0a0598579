import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseAdmCid } from '../../../src/protocols/dc09/adm-cid.js';
import { classifyCid } from '../../../src/protocols/dc09/classify.js';

test('qualifier, event code, group and zone of the standard form', () => {
  assert.equal(parseAdmCid('#1234|1401 01 015'), {
    account: '1234',
    qualifier: 'E',
    code: '401',
    group: '01',
    zone: '015',
  });
  assert.equal(parseAdmCid('#1234|3130 02 004'), {
    account: '1234',
    qualifier: 'R',
    code: '130',
    group: '02',
    zone: '004',
  });
  assert.equal(parseAdmCid('#1234|6301 00 000'), {
    account: '1234',
    qualifier: 'P',
    code: '301',
    group: '00',
    zone: '000',
  });
});

test('tolerated forms: no spaces, a space after the qualifier, no "#", no account, lower-case hex', () => {
  assert.equal(parseAdmCid('#1234|140101015'), {
    account: '1234',
    qualifier: 'E',
    code: '401',
    group: '01',
    zone: '015',
  });
  assert.equal(parseAdmCid('#1234|1 401 01 015'), {
    account: '1234',
    qualifier: 'E',
    code: '401',
    group: '01',
    zone: '015',
  });
  assert.equal(parseAdmCid('10064|1602 00 000'), {
    account: '10064',
    qualifier: 'E',
    code: '602',
    group: '00',
    zone: '000',
  });
  assert.equal(parseAdmCid('1602 00 000'), { qualifier: 'E', code: '602', group: '00', zone: '000' });
  assert.equal(parseAdmCid('#1234|1130 0b 00f'), {
    account: '1234',
    qualifier: 'E',
    code: '130',
    group: '0B',
    zone: '00F',
  });
});

test('anything else is an error, never a throw', () => {
  for (const bad of [
    '',
    '#1234|',
    '#1234|2401 01 015',
    '#1234|1401 01 01',
    '#1234|1401 01 0155',
    'Nri1/BA01',
    '#1234|1401  01 015',
  ]) {
    assert.ok('error' in parseAdmCid(bad), bad);
  }
});

test('Contact ID classification: qualifier, family and link tests', () => {
  assert.is(classifyCid('E', '130'), 'alarm');
  assert.is(classifyCid('P', '130'), 'alarm');
  assert.is(classifyCid('E', '301'), 'alarm');
  assert.is(classifyCid('E', '200'), 'alarm');
  assert.is(classifyCid('R', '130'), 'restore');
  assert.is(classifyCid('R', '301'), 'restore');
  assert.is(classifyCid('E', '401'), 'other');
  assert.is(classifyCid('R', '401'), 'other'); // closing, not a restore
  assert.is(classifyCid('E', '570'), 'other');
  assert.is(classifyCid('E', '602'), 'link_test');
  assert.is(classifyCid('R', '603'), 'link_test');
  assert.is(classifyCid('E', '601'), 'link_test');
  assert.is(classifyCid('E', '627'), 'other');
});

test.run();
