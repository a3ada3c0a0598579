import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ResponseStatus } from '../../../src/protocols/device-link/messages.js';
import { ReplyAssembler, type AssemblyStep } from '../../../src/protocols/device-link/reply-assembler.js';

type P = [number, number, ResponseStatus?, string?];

function feed(kind: 'control' | 'config', packets: readonly P[]): AssemblyStep[] {
  const assembler = new ReplyAssembler(kind);
  return packets.map(([packetNumber, packetCount, status = 'OK', hex = '']) =>
    assembler.push({ packetNumber, packetCount, status, data: Buffer.from(hex, 'hex') }),
  );
}

const last = (steps: AssemblyStep[]): AssemblyStep => steps[steps.length - 1]!;
const error = (e: string): AssemblyStep => ({ state: 'done', reply: { ok: false, error: e as never } });

test('a single packet 1 of 1 completes with its data', () => {
  assert.equal(feed('control', [[1, 1, 'OK', 'A1B2']]), [
    { state: 'done', reply: { ok: true, packets: [Buffer.from('A1B2', 'hex')] } },
  ]);
});

test('three packets in order stay pending until the last and come out in order', () => {
  const steps = feed('config', [
    [1, 3, 'OK', '01'],
    [2, 3, 'OK', '02'],
    [3, 3, 'OK', ''],
  ]);
  assert.equal(steps.slice(0, 2), [{ state: 'pending' }, { state: 'pending' }]);
  assert.equal(last(steps), {
    state: 'done',
    reply: { ok: true, packets: [Buffer.from([1]), Buffer.from([2]), Buffer.alloc(0)] },
  });
});

test('a repeated packet number is INVALID_PACKET_NUMBER', () => {
  assert.equal(
    last(
      feed('control', [
        [1, 3],
        [1, 3],
      ]),
    ),
    error('INVALID_PACKET_NUMBER'),
  );
});

test('a skipped packet number is INVALID_PACKET_NUMBER', () => {
  assert.equal(
    last(
      feed('control', [
        [1, 3],
        [3, 3],
      ]),
    ),
    error('INVALID_PACKET_NUMBER'),
  );
});

test('a first packet numbered 2 is INVALID_PACKET_NUMBER', () => {
  assert.equal(feed('control', [[2, 3]]), [error('INVALID_PACKET_NUMBER')]);
});

test('packet number 0 is INVALID_PACKET_NUMBER', () => {
  assert.equal(feed('control', [[0, 2]]), [error('INVALID_PACKET_NUMBER')]);
});

test('a count that changes between packets is INVALID_PACKET_COUNT', () => {
  assert.equal(
    last(
      feed('control', [
        [1, 3],
        [2, 2],
      ]),
    ),
    error('INVALID_PACKET_COUNT'),
  );
});

test('a number above the count is INVALID_PACKET_COUNT', () => {
  assert.equal(feed('control', [[2, 1]]), [error('INVALID_PACKET_COUNT')]);
});

test('count 0 is INVALID_PACKET_COUNT', () => {
  assert.equal(feed('control', [[1, 0]]), [error('INVALID_PACKET_COUNT')]);
});

test('status MPASS is MPASS_IS_INCORRECT, whatever the numbering', () => {
  assert.equal(feed('control', [[1, 0, 'MPASS']]), [error('MPASS_IS_INCORRECT')]);
});

test('status BAD is BAD_DATA', () => {
  assert.equal(feed('config', [[1, 1, 'BAD']]), [error('BAD_DATA')]);
});

test('status REJ is CONFIG_REJECTED for a configuration and BAD_DATA for a control command', () => {
  assert.equal(feed('config', [[1, 1, 'REJ']]), [error('CONFIG_REJECTED')]);
  assert.equal(feed('control', [[1, 1, 'REJ']]), [error('BAD_DATA')]);
});

test('a non-OK status after good packets ends the request with that error', () => {
  assert.equal(
    last(
      feed('config', [
        [1, 2, 'OK', '01'],
        [2, 2, 'REJ'],
      ]),
    ),
    error('CONFIG_REJECTED'),
  );
});

test('once done, further packets change nothing', () => {
  const assembler = new ReplyAssembler('control');
  const done = assembler.push({ packetNumber: 1, packetCount: 1, status: 'OK', data: Buffer.from([9]) });
  assert.ok(assembler.done);
  assert.equal(assembler.push({ packetNumber: 2, packetCount: 1, status: 'BAD', data: Buffer.alloc(0) }), done);
});

test.run();
