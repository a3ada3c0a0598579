/**
 * The journal row described once (src/store/journal-columns.ts, docs/writer.md §The journal row):
 * the INSERT, the wire row, the writer's insert parameters and the MySQL mirror all follow the one
 * column list, so a value always lands in the column of its name.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { INSERT_EVENT_SQL } from '../../src/store/event-rows.js';
import {
  JOURNAL_COLUMN_NAMES,
  insertParams,
  packRow,
  readRow,
  setWireField,
  toInsertParams,
  wireField,
  wireRow,
  type RowField,
} from '../../src/store/journal-columns.js';
import { JOURNAL_COLUMNS, type NewEvent, type StoredEvent } from '../../src/core/event-row.js';
import { ValuePacker, ValueReader } from '../../src/writer/value-pack.js';
import { EVENT_COLUMNS, eventRow } from '../../src/store/mysql-sync/remote-rows.js';
import { sampleEvent } from './helpers/store-fixture.js';

/**
 * An event whose every column holds a value no other column holds (the n-th column's number is
 * 1000 + n, its text names it, its enum is a value of its own), so a value in the wrong place shows.
 */
function distinctEvent(): NewEvent {
  const enums: Record<string, unknown> = { receiverKind: 'modem', eventClass: 'restore', qualifier: 'P' };
  const fields: Record<string, unknown> = {};
  JOURNAL_COLUMNS.forEach((c, n) => {
    if (c.kind === 'time' || c.kind === 'integer') fields[c.field] = 1000 + n;
    else if (c.kind === 'bool') fields[c.field] = true;
    else if (c.kind === 'enum') fields[c.field] = enums[c.field];
    else if (c.kind === 'blob') fields[c.field] = Buffer.from(c.name);
    else fields[c.field] = `${c.name}-value`;
  });
  return fields as unknown as NewEvent;
}

const byName = (values: readonly unknown[], names: readonly string[]): Record<string, unknown> =>
  Object.fromEntries(names.map((name, i) => [name, values[i]]));

test('a NewEvent becomes insert parameters by column name; the code is stored upper-case', () => {
  const event = sampleEvent({ code: 'ba', deviceTime: 7, objectId: 42, encrypted: true, flags: 2 });
  const params = toInsertParams(event);
  assert.is(params.length, JOURNAL_COLUMN_NAMES.length);
  const named = byName(params, JOURNAL_COLUMN_NAMES);
  assert.equal(
    { ...named, raw: Buffer.from(named.raw as Buffer).toString() },
    {
      received_at: event.receivedAt,
      device_time: 7,
      device_time_text: null,
      receiver_id: 1,
      receiver_kind: 'tcp',
      transport: 'tcp',
      remote_address: '127.0.0.1:40000',
      object_id: 42,
      account: '001234',
      dc09_receiver: 'R1',
      dc09_line: 'L1',
      sequence: '0001',
      protocol: 'SIA-DCS',
      encrypted: 1,
      event_class: 'alarm',
      qualifier: 'E',
      code: 'BA',
      group_no: '01',
      zone_no: '003',
      text: null,
      flags: 2,
      raw: Buffer.from(event.raw).toString(),
    },
  );
  assert.ok(INSERT_EVENT_SQL.includes(`(${JOURNAL_COLUMN_NAMES.join(', ')})`), INSERT_EVENT_SQL);
});

test("every builder puts each column's value in the column of its name (no two columns swapped)", () => {
  const event = distinctEvent();
  const named = byName(toInsertParams(event), JOURNAL_COLUMN_NAMES);
  for (const c of JOURNAL_COLUMNS) {
    const value = event[c.field];
    let expected: unknown = value;
    if (c.kind === 'bool') expected = value ? 1 : 0;
    else if (c.kind === 'code') expected = String(value).toUpperCase();
    assert.equal(named[c.name], expected, c.name);
  }
  const row = wireRow(event);
  for (const c of JOURNAL_COLUMNS)
    if (c.source === 'row') assert.equal(wireField(row, c.field as RowField), event[c.field], `wire row ${c.field}`);
  const packer = new ValuePacker(16);
  packRow(packer, row);
  const reader = new ValueReader(packer.done());
  assert.equal(readRow(reader), row, 'readRow reads back what packRow wrote, value by value');
  assert.ok(reader.done, 'and nothing more');
});

test('the writer builds the same parameters from a frame and a wire row as from the whole event', () => {
  const event = sampleEvent({ code: 'ba', objectId: 9 });
  const row = wireRow(event);
  const raw = Buffer.from(event.raw);
  assert.equal(insertParams(event, row, raw, 9), toInsertParams(event));
  assert.is(wireField(row, 'code'), 'ba', 'the wire row carries the code as decoded');
  setWireField(row, 'flags', 1);
  assert.is(byName(insertParams(event, row, raw, 9), JOURNAL_COLUMN_NAMES).flags, 1);
});

test('an absent optional field is null, absent flags 0', () => {
  const { deviceTime: _t, qualifier: _q, text: _x, ...bare } = sampleEvent();
  const named = byName(toInsertParams({ ...bare, code: null }), JOURNAL_COLUMN_NAMES);
  assert.equal([named.device_time, named.qualifier, named.text, named.code, named.flags], [null, null, null, null, 0]);
});

test('the MySQL mirror has the id, then the same columns in the same order, each value by its kind', () => {
  assert.equal(EVENT_COLUMNS, ['id', ...JOURNAL_COLUMN_NAMES]);
  const stored: StoredEvent = {
    id: 5,
    receivedAt: Date.UTC(2026, 0, 1),
    deviceTime: null,
    deviceTimeText: 'x'.repeat(300),
    receiverId: 1,
    receiverKind: 'udp',
    transport: 'udp',
    remoteAddress: '127.0.0.1:1',
    objectId: null,
    account: '1234',
    dc09Receiver: null,
    dc09Line: null,
    sequence: null,
    protocol: 'ADM-CID',
    encrypted: true,
    eventClass: 'alarm',
    qualifier: 'E',
    code: '130',
    groupNo: null,
    zoneNo: null,
    text: 't'.repeat(300),
    flags: 0,
    raw: Buffer.from('r'),
  };
  const named = byName(eventRow(stored), EVENT_COLUMNS);
  assert.equal(named.id, 5);
  assert.equal(named.received_at, new Date(Date.UTC(2026, 0, 1)));
  assert.is(named.device_time, null);
  assert.is((named.device_time_text as string).length, 255, 'text columns are cut to 255');
  assert.is((named.text as string).length, 300, 'the text column is kept whole');
  assert.equal([named.encrypted, named.code, named.receiver_kind, named.account], [1, '130', 'udp', '1234']);
});

test.run();
