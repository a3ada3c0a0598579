/**
 * Validation of the Ademco 685 protocol and the MLR2 variant block (docs/outputs.md §Settings, §MLR2 variants):
 * every refusal names its field path; accepted settings are stored as given.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { accepted, errorsOf, output } from './support.js';

test('an unknown protocol is refused at outputs[i].protocol, naming the allowed ones', async () => {
  assert.equal(await errorsOf({ outputs: [output(1, { protocol: 'ADEMCO-684' })] }), [
    'outputs[0].protocol: must be one of "MLR2", "MLR2-DG", "SIA-DC09", "JSON" or "ADEMCO-685"',
  ]);
});

test('Ademco 685 is accepted on TCP and COM; R and G are one digit each', async () => {
  const next = await accepted({
    outputs: [
      output(1, { protocol: 'ADEMCO-685', receiver_number: 9, line_number: 9 }),
      output(2, { protocol: 'ADEMCO-685', type: 3, identificator: '/dev/ttyUSB1' }),
    ],
  });
  assert.is(next.outputs[0]?.protocol, 'ADEMCO-685');
  assert.is(next.outputs[1]?.type, 3);
  assert.equal(
    await errorsOf({ outputs: [output(1, { protocol: 'ADEMCO-685', receiver_number: 10, line_number: 12 })] }),
    [
      'outputs[0].line_number: must be between 0 and 9 for ADEMCO-685 (the receiver group G)',
      'outputs[0].receiver_number: must be between 0 and 9 for ADEMCO-685',
    ],
  );
});

test('Ademco 685 on UDP is refused: its one-byte ACK needs a stream', async () => {
  assert.equal(await errorsOf({ outputs: [output(1, { protocol: 'ADEMCO-685', type: 2 })] }), [
    'outputs[0].type: UDP (2) is only allowed with protocol "SIA-DC09"',
  ]);
});

test('options that do not fit the protocol are refused at their path', async () => {
  assert.equal(await errorsOf({ outputs: [output(1, { protocol: 'ADEMCO-685', mlr2: { line_digits: 3 } })] }), [
    'outputs[0].mlr2: only allowed when protocol is "MLR2" or "MLR2-DG"',
  ]);
  assert.equal(
    await errorsOf({ outputs: [output(1, { protocol: 'ADEMCO-685', sia_dc09: { link_test_interval_s: 60 } })] }),
    ['outputs[0].sia_dc09: only allowed when protocol is "SIA-DC09"'],
  );
  assert.equal(await errorsOf({ outputs: [output(1, { mlr2: { line_digits: 2, long_accounts: 'cut' } })] }), [
    'outputs[0].mlr2.line_digits: must be one of 1 or 3',
    'outputs[0].mlr2.long_accounts: must be one of "skip" or "contact_id_10"',
  ]);
});

test('MLR2 variants: a 3-digit line needs MLR2-DG, 10-digit accounts need the 3-digit line, the line range follows', async () => {
  assert.equal(await errorsOf({ outputs: [output(1, { protocol: 'MLR2', mlr2: { line_digits: 3 } })] }), [
    'outputs[0].mlr2.line_digits: 3 needs protocol "MLR2-DG" (SIA Protocol 2 is the 3-digit-line SIA layout)',
  ]);
  assert.equal(await errorsOf({ outputs: [output(1, { mlr2: { long_accounts: 'contact_id_10' } })] }), [
    'outputs[0].mlr2.long_accounts: "contact_id_10" needs mlr2.line_digits 3 (its layout has a 3-digit line)',
  ]);
  assert.equal(await errorsOf({ outputs: [output(1, { protocol: 'MLR2-DG', line_number: 10 })] }), [
    'outputs[0].line_number: must be between 0 and 9 for MLR2-DG',
  ]);
  assert.equal(
    await errorsOf({ outputs: [output(1, { protocol: 'MLR2-DG', line_number: 1000, mlr2: { line_digits: 3 } })] }),
    ['outputs[0].line_number: must be between 0 and 999 for MLR2-DG with mlr2.line_digits 3'],
  );
  const next = await accepted({
    outputs: [
      output(1, {
        protocol: 'MLR2-DG',
        line_number: 100,
        mlr2: { line_digits: 3, long_accounts: 'contact_id_10' },
      }),
      output(2, { protocol: 'MLR2', identificator: '192.0.2.10:1026' }),
    ],
  });
  assert.equal(next.outputs[0]?.mlr2, { line_digits: 3, long_accounts: 'contact_id_10' });
  assert.is(next.outputs[1]?.mlr2, undefined, 'an output without the block keeps the classic layout');
});

test.run();
