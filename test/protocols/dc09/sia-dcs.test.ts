import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSiaDcs } from '../../../src/protocols/dc09/sia-dcs.js';
import { classifySia } from '../../../src/protocols/dc09/classify.js';

test('account, area modifier, code and zone of a single event', () => {
  assert.equal(parseSiaDcs('#001234|Nri1/BA01'), {
    account: '001234',
    events: [{ function: 'N', code: 'BA', parameter: '01', modifiers: { ri: '1' } }],
  });
});

test('several events share the modifiers in effect before them', () => {
  const r = parseSiaDcs('#1234|Nri1/BA01/BA02/ri2/FA003');
  assert.ok('events' in r);
  assert.equal(
    r.events.map((e) => [e.code, e.parameter, e.modifiers.ri]),
    [
      ['BA', '01', '1'],
      ['BA', '02', '1'],
      ['FA', '003', '2'],
    ],
  );
});

test('ti with seconds, id and compact modifiers without slashes', () => {
  const r = parseSiaDcs('#1234|Nti12:30:45/id3/ri1/CL3');
  assert.ok('events' in r);
  assert.equal(r.events[0]!.modifiers, { ti: '12:30:45', id: '3', ri: '1' });
  const compact = parseSiaDcs('#123456|Nri0OP4^Sirena Interna  ^');
  assert.equal(compact, {
    account: '123456',
    events: [{ function: 'N', code: 'OP', parameter: '4', text: 'Sirena Interna  ', modifiers: { ri: '0' } }],
  });
});

test('unknown codes are kept as they are', () => {
  const r = parseSiaDcs('#1234|NZX99');
  assert.equal(r, { account: '1234', events: [{ function: 'N', code: 'ZX', parameter: '99', modifiers: {} }] });
  assert.is(classifySia('ZX'), 'other');
});

test('text forms: ^name^ after a modifier or code, *"text", and an ASCII block', () => {
  const named = parseSiaDcs('#1234|Nri1^Ground floor^/BA01^Front door^');
  assert.ok('events' in named);
  assert.equal(named.events[0], {
    function: 'N',
    code: 'BA',
    parameter: '01',
    text: 'Front door',
    modifiers: { ri: '1', ri_name: 'Ground floor' },
  });
  const xsia = parseSiaDcs('#1234|NBA01*"Kitchen window"NM');
  assert.ok('events' in xsia);
  assert.equal(
    xsia.events.map((e) => [e.code, e.text]),
    [['BA', 'Kitchen window']],
  );
  const ascii = parseSiaDcs('#1234|NBA01|AKitchen window');
  assert.ok('events' in ascii);
  assert.equal(
    ascii.events.map((e) => [e.code, e.text]),
    [['BA', 'Kitchen window']],
  );
});

test('UTF-8 and Windows-1252 text are both decoded', () => {
  const utf8 = parseSiaDcs(`#777|NBA501^${Buffer.from('Улица', 'utf8').toString('latin1')}^`);
  assert.ok('events' in utf8);
  assert.is(utf8.events[0]!.text, 'Улица');
  const cp1252 = parseSiaDcs('#777|NBA501^Caf\xe9 \x80^');
  assert.ok('events' in cp1252);
  assert.is(cp1252.events[0]!.text, 'Café €');
});

test('tolerated account forms: without "#", empty, or absent', () => {
  assert.equal(parseSiaDcs('3044|NOP1'), {
    account: '3044',
    events: [{ function: 'N', code: 'OP', parameter: '1', modifiers: {} }],
  });
  assert.equal(parseSiaDcs('|NBA1'), { events: [{ function: 'N', code: 'BA', parameter: '1', modifiers: {} }] });
  assert.equal(parseSiaDcs('Nri1/WA000'), {
    events: [{ function: 'N', code: 'WA', parameter: '000', modifiers: { ri: '1' } }],
  });
});

test('the function code is stripped only when an event or modifier follows it', () => {
  assert.equal(parseSiaDcs('#1234|OP1'), {
    account: '1234',
    events: [{ function: '', code: 'OP', parameter: '1', modifiers: {} }],
  });
  assert.equal(parseSiaDcs('#1234|ORP'), { account: '1234', events: [{ function: 'O', code: 'RP', modifiers: {} }] });
  assert.equal(parseSiaDcs('#1234|NRP'), { account: '1234', events: [{ function: 'N', code: 'RP', modifiers: {} }] });
});

test('data without any event code is an error, never a throw', () => {
  for (const bad of [
    '',
    '#1234',
    '#1234|',
    '#1234|N',
    '#1234|Nri1',
    '#1234|N!!',
    'hello',
    '#1234|Atext only',
    '#1234|N1BA',
  ]) {
    const r = parseSiaDcs(bad);
    assert.ok('error' in r, bad);
  }
});

test('SIA classification table: alarms, restores, link tests, others', () => {
  const expect: Record<string, string> = {
    BA: 'alarm',
    FA: 'alarm',
    PA: 'alarm',
    TA: 'alarm',
    YT: 'alarm',
    AT: 'alarm',
    BT: 'alarm',
    BR: 'restore',
    BH: 'restore',
    FR: 'restore',
    TR: 'restore',
    YR: 'restore',
    AR: 'restore',
    LR: 'restore',
    RP: 'link_test',
    RX: 'link_test',
    TX: 'link_test',
    OP: 'other',
    CL: 'other',
    BB: 'other',
    BU: 'other',
    TS: 'other',
    ZX: 'other',
  };
  for (const [code, cls] of Object.entries(expect)) assert.is(classifySia(code), cls, code);
});

test.run();
