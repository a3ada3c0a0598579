/**
 * The JSON server driver, pure: the line of an event (the webhook's event object inside), heartbeat ids, and which
 * client lines are ACKs: split or joined across reads, CRLF, wrong ids and other lines ignored, an endless line
 * dropped.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JsonDriver } from '../../src/outputs/json-driver.js';
import { webhookEvent } from '../../src/outputs/webhook-body.js';
import { sampleEvent } from '../store/helpers/store-fixture.js';
import { cidEvent } from './helpers/output-fixture.js';

const driver = () =>
  new JsonDriver({ gateway: 'Site A', uidOf: () => 'A1B2C3', now: () => Date.UTC(2026, 10, 26, 15) });

function outgoing(id: number) {
  return { event: { ...sampleEvent(cidEvent({ objectId: 7 })), id }, account: '00A1' } as never;
}

test('an event line is the webhook event object under "event", ended by LF', () => {
  const d = driver();
  const exchange = d.event(outgoing(42));
  const frame = exchange.frame().toString('utf8');
  assert.ok(frame.endsWith('}\n'));
  assert.not.ok(frame.slice(0, -1).includes('\n'), 'one line');
  const line = JSON.parse(frame);
  assert.equal(line, {
    type: 'event',
    id: 42,
    version: 1,
    gateway: 'Site A',
    event: JSON.parse(JSON.stringify(webhookEvent(outgoing(42), () => 'A1B2C3'))),
  });
  assert.is(line.event.account, '00A1');
  assert.equal(line.event.object, { id: 7, uid: 'A1B2C3' });
});

test('ACKs are matched by id, split or joined across reads, with CRLF; everything else is ignored', () => {
  const d = driver();
  const exchange = d.event(outgoing(42));
  const replies = [
    ...d.read(Buffer.from('{"ack":41}\n{"ack":"42"}\nhello\n{"nak":42}\n{"ac')),
    ...d.read(Buffer.from('k":42}\r\n')),
  ];
  assert.equal(replies, [{ ack: 41 }, { ack: '42' }, { ack: 42 }]);
  assert.equal(
    replies.map((r) => exchange.reply(r)),
    ['ignore', 'ignore', 'ack'],
    'a number id is not ACKed by a string',
  );
});

test('heartbeats are numbered hb-1, hb-2 and ACKed by their own id only', () => {
  const d = driver();
  const first = d.supervision();
  const second = d.supervision();
  assert.equal(JSON.parse(first.frame().toString('utf8')), {
    type: 'heartbeat',
    id: 'hb-1',
    version: 1,
    gateway: 'Site A',
    sent_at: '2026-11-26T15:00:00.000Z',
  });
  assert.is(second.reply({ ack: 'hb-1' }), 'ignore');
  assert.is(second.reply({ ack: 'hb-2' }), 'ack');
});

test('a line longer than 4 KiB without LF is dropped, and reading goes on after it', () => {
  const d = driver();
  assert.equal(d.read(Buffer.alloc(5000, 0x61)), []);
  assert.equal(d.read(Buffer.from('aaa\n{"ack":7}\n')), [{ ack: 7 }]);
  d.read(Buffer.from('{"ack":'));
  d.reset();
  assert.equal(d.read(Buffer.from('8}\n')), [], 'a new connection forgets the partial line');
});

test.run();
