import { createDecipheriv } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import { StatusDecoder, StatusEncoder, type StatusChange } from '../../src/status-output/frame.js';

const AT = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
const KEY = 'Sixteen-char-key';

const lost: StatusChange = {
  kind: 'lost',
  at: AT,
  object: { id: 7, account: '001234', uid: '00A1B2C3', receiverId: 2, mainObjectId: null, connectionState: 'lost' },
};

test('a plain frame is the JSON object with keys in documented order, ended by LF', () => {
  const bytes = new StatusEncoder(null).encode({ type: 'lost', at: lost.at, object: lost.object });
  assert.is(
    bytes.toString('utf8'),
    '{"v":1,"type":"lost","at":"2026-01-02T03:04:05.678Z","object_id":7,"main_object_id":null,"account":"001234",' +
      '"uid":"00A1B2C3","receiver_id":2,"state":"lost"}\n',
  );
});

test('hello and heartbeat frames have their exact bytes', () => {
  const encoder = new StatusEncoder(null);
  assert.is(
    encoder.encode({ type: 'hello', at: AT, instance: 'site-a', objects: 3 }).toString(),
    '{"v":1,"type":"hello","at":"2026-01-02T03:04:05.678Z","instance":"site-a","objects":3}\n',
  );
  assert.is(
    encoder.encode({ type: 'heartbeat', at: AT }).toString(),
    '{"v":1,"type":"heartbeat","at":"2026-01-02T03:04:05.678Z"}\n',
  );
});

test('a signal frame carries signal_level after state; a related object names its main object', () => {
  const bytes = new StatusEncoder(null).encode({
    type: 'signal',
    at: AT,
    object: { id: 9, account: '77', uid: null, receiverId: 1, mainObjectId: 7, connectionState: 'online' },
    signalLevel: -71,
  });
  assert.is(
    bytes.toString(),
    '{"v":1,"type":"signal","at":"2026-01-02T03:04:05.678Z","object_id":9,"main_object_id":7,"account":"77",' +
      '"uid":null,"receiver_id":1,"state":"online","signal_level":-71}\n',
  );
});

test('an encrypted frame is upper-case hex of AES-128-CBC (zero IV, key = the 16 characters) over pad|JSON', () => {
  const fixed = (n: number): Buffer => Buffer.alloc(n, 0); // pad characters all '!' (first of the pad alphabet)
  const line = new StatusEncoder(KEY, fixed).encode({ type: 'heartbeat', at: AT }).toString('latin1');
  assert.ok(line.endsWith('\n'));
  const hex = line.slice(0, -1);
  assert.match(hex, /^[0-9A-F]+$/);
  assert.is(hex.length % 32, 0);
  const decipher = createDecipheriv('aes-128-cbc', Buffer.from(KEY, 'latin1'), Buffer.alloc(16));
  decipher.setAutoPadding(false);
  const plain = Buffer.concat([decipher.update(Buffer.from(hex, 'hex')), decipher.final()]).toString('latin1');
  const json = '{"v":1,"type":"heartbeat","at":"2026-01-02T03:04:05.678Z"}';
  const padLength = 16 - ((json.length + 1) % 16) || 16;
  assert.is(plain, `${'!'.repeat(padLength)}|${json}`);
});

test('encryption round trip: the decoder with the same key gets the frame back, also with non-ASCII text', () => {
  const encoder = new StatusEncoder(KEY);
  const change = { ...lost, object: { ...lost.object, account: 'Zürich-1' } };
  const bytes = encoder.encode({ type: change.kind, at: change.at, object: change.object });
  const [frame] = new StatusDecoder(KEY).push(bytes);
  assert.equal(frame, {
    v: 1,
    type: 'lost',
    at: '2026-01-02T03:04:05.678Z',
    object_id: 7,
    main_object_id: null,
    account: 'Zürich-1',
    uid: '00A1B2C3',
    receiver_id: 2,
    state: 'lost',
  });
});

test('the random pad makes two encryptions of the same frame differ', () => {
  const encoder = new StatusEncoder(KEY);
  const a = encoder.encode({ type: 'heartbeat', at: AT });
  const b = encoder.encode({ type: 'heartbeat', at: AT });
  assert.is.not(a.toString(), b.toString());
});

test('a wrong key decodes to null instead of throwing', () => {
  const bytes = new StatusEncoder(KEY).encode({ type: 'heartbeat', at: AT });
  assert.equal(new StatusDecoder('another-16-chars').push(bytes), [null]);
});

test('decoder: two frames in one chunk and one frame in two chunks', () => {
  const encoder = new StatusEncoder(null);
  const one = encoder.encode({ type: 'heartbeat', at: AT });
  const two = encoder.encode({ type: 'hello', at: AT, instance: 'x', objects: 0 });
  const decoder = new StatusDecoder(null);
  const both = decoder.push(Buffer.concat([one, two]));
  assert.equal(
    both.map((f) => f?.type),
    ['heartbeat', 'hello'],
  );
  assert.equal(decoder.push(one.subarray(0, 10)), []);
  assert.equal(
    decoder.push(one.subarray(10)).map((f) => f?.type),
    ['heartbeat'],
  );
  assert.equal(decoder.push(Buffer.from('not json\n')), [null]);
});

test('a key that is not 16 characters is refused', () => {
  try {
    new StatusEncoder('short');
    assert.unreachable('accepted a 5-character key');
  } catch (err) {
    assert.ok(isVigilError(err, 'INVALID_SETTINGS'));
  }
});

test.run();
