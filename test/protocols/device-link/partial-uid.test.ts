import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { selectByPartialUid, uidMatchesPartial } from '../../../src/protocols/device-link/partial-uid.js';

const DEVICES = [
  { id: 1, uid: '0123456789ABCDEF' },
  { id: 2, uid: 'FEDCBA98765432EF' },
  { id: 3, uid: '00000000AAAA0001' },
];
const uidOf = (d: { uid: string }): string => d.uid;

test('a partial UID matches a device whose UID ends with it, in either case', () => {
  assert.ok(uidMatchesPartial('0123456789ABCDEF', 'cdef'));
  assert.ok(uidMatchesPartial('0123456789abcdef', 'CDEF'));
  assert.ok(uidMatchesPartial('0123456789ABCDEF', '0123456789ABCDEF'));
  assert.not.ok(uidMatchesPartial('0123456789ABCDEF', '0123'), 'a prefix is not a match');
  assert.not.ok(uidMatchesPartial('0123456789ABCDEF', ''), 'empty matches nothing');
  assert.not.ok(uidMatchesPartial('0123456789ABCDEF', 'CDEG'), 'not hex');
  assert.not.ok(uidMatchesPartial('ABCDEF', '00ABCDEF'), 'longer than the UID');
});

test('exactly one match selects the device', () => {
  assert.equal(selectByPartialUid('cdef', DEVICES, uidOf), { kind: 'one', item: DEVICES[0] });
  assert.equal(selectByPartialUid('0001', DEVICES, uidOf), { kind: 'one', item: DEVICES[2] });
});

test('two matches are ambiguous, none is none', () => {
  assert.equal(selectByPartialUid('EF', DEVICES, uidOf), { kind: 'ambiguous', count: 2 });
  assert.equal(selectByPartialUid('1234', DEVICES, uidOf), { kind: 'none' });
});

test.run();
