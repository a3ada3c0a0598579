import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import { receiverPasswordKey } from '../../src/protocols/dc09/crypto.js';
import { deviceAccount, deviceUid, resolveSimKey } from '../../src/sim/identity.js';
import { resolveSimOptions } from '../../src/sim/sim-options.js';

test('accounts count up from the base in hex, keeping its leading zeros', () => {
  assert.is(deviceAccount('001000', 0), '001000');
  assert.is(deviceAccount('001000', 9), '001009');
  assert.is(deviceAccount('001000', 10), '00100A');
  assert.is(deviceAccount('0ff', 1), '100');
  assert.is(deviceAccount('FFF', 1), '1000');
});

test('UIDs count up from the base the same way', () => {
  assert.is(deviceUid('a10000000000', 255), 'A100000000FF');
});

test('a 6-character key is the receiver password rule; 16 characters are the key bytes; 32 hex digits are decoded', () => {
  assert.equal(resolveSimKey('abc123'), receiverPasswordKey('abc123'));
  assert.equal(resolveSimKey('0123456789abcdef'), Buffer.from('0123456789abcdef', 'latin1'));
  assert.equal(
    resolveSimKey('00112233445566778899AABBCCDDEEFF'),
    Buffer.from('00112233445566778899AABBCCDDEEFF', 'hex'),
  );
  assert.is(resolveSimKey('x'.repeat(24)).length, 24);
  assert.throws(
    () => resolveSimKey('short'),
    (err: unknown) => isVigilError(err, 'INVALID_SETTINGS'),
  );
});

test('options: a base too large for the fleet, a UDP fleet above its socket bound and both rates at once are refused', () => {
  const refused = (input: Parameters<typeof resolveSimOptions>[0], text: string): void => {
    assert.throws(
      () => resolveSimOptions(input),
      (err: unknown) => isVigilError(err, 'INVALID_SETTINGS') && (err as Error).message.includes(text),
    );
  };
  refused({ port: 1, accountBase: 'FFFFFFFFFFFFFFFF', devices: 2 }, 'account_base');
  refused({ port: 1, transport: 'udp', devices: 5001 }, 'devices');
  refused({ port: 1, ratePerDevice: 1, totalRate: 10 }, 'rate');
  refused({ port: 0 }, 'port');
  refused({ port: 1, link: { fault: 'nonsense' as never } }, 'fault');
});

test('options: a total rate is split over the devices; saturate ignores the rate', () => {
  assert.is(resolveSimOptions({ port: 1, devices: 4, totalRate: 100 }).ratePerDevice, 25);
  assert.is(resolveSimOptions({ port: 1, saturate: true, ratePerDevice: 5 }).ratePerDevice, 0);
});

test.run();
