/**
 * The DC-09 tolerances end to end (docs/dc09.md "Tolerances"): frames of real panels from the corpus (each with
 * its source, test/protocols/dc09/corpus.ts) over real TCP and UDP sockets on loopback into a receiver on a real
 * SQLite journal. Exact reply bytes (in the panel's form), journaled fields, raw frame kept, quirks counted in
 * health; each switch off refuses its frame as before.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IpReceiverSettings } from '../../src/settings/schema-receivers.js';
import { LOOPBACK } from '../helpers/net.js';
import { CORPUS, type CorpusFrame } from '../protocols/dc09/corpus.js';
import { bitwiseCrc } from '../protocols/dc09/fixtures.js';
import { portOf, startRig, type Rig } from './helpers/rig.js';

let rig: Rig;
let nextId = 100;

test.before(async () => {
  rig = await startRig();
});

test.after(async () => {
  await rig.close();
});

/** The reply a panel in this form expects, built independently of the codec (bit-by-bit CRC). */
function expectedReply(body: string, form: { binaryCrc?: boolean; crCounted?: boolean }): Buffer {
  const bytes = Buffer.from(body, 'latin1');
  const covered = form.crCounted ? Buffer.concat([bytes, Buffer.from('\r')]) : bytes;
  const crc = bitwiseCrc(covered);
  const length = `0${covered.length.toString(16).toUpperCase().padStart(3, '0')}`;
  const crcField = form.binaryCrc
    ? Buffer.from([crc >>> 8, crc & 0xff])
    : Buffer.from(crc.toString(16).toUpperCase().padStart(4, '0'));
  return Buffer.concat([Buffer.from('\n'), crcField, Buffer.from(length), bytes, Buffer.from('\r')]);
}

function formOf(c: CorpusFrame): { binaryCrc: boolean; crCounted: boolean } {
  return { binaryCrc: c.quirks.includes('binary-crc'), crCounted: c.quirks.includes('cr-counted') };
}

/** Raw bytes read from a socket until `bytes` arrived or `ms` passed. */
async function collect(
  source: { on(e: 'data' | 'message', f: (b: Buffer) => void): unknown },
  kind: 'data' | 'message',
  bytes: number,
  ms: number,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(Buffer.concat(chunks)), ms);
    source.on(kind, (b: Buffer) => {
      chunks.push(b);
      total += b.length;
      if (total >= bytes) {
        clearTimeout(timer);
        resolve(Buffer.concat(chunks));
      }
    });
  });
}

async function overTcp(port: number, wire: Buffer, expectBytes: number, ms = 2000): Promise<Buffer> {
  const socket: Socket = connect({ port, host: LOOPBACK, noDelay: true });
  await new Promise((resolve) => socket.once('connect', resolve));
  const reply = collect(socket, 'data', expectBytes, ms);
  socket.write(wire);
  const got = await reply;
  socket.destroy();
  return got;
}

async function overUdp(port: number, wire: Buffer, expectBytes: number, ms = 2000): Promise<Buffer> {
  const socket: UdpSocket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, LOOPBACK, () => resolve()));
  const reply = collect(socket, 'message', expectBytes, ms);
  socket.send(wire, port, LOOPBACK);
  const got = await reply;
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return got;
}

async function receiver(
  kind: 'tcp' | 'udp',
  settings: Partial<IpReceiverSettings> = {},
): Promise<{ port: number; id: number; stop(): Promise<void>; publish(): void }> {
  const id = nextId++;
  const rx = kind === 'tcp' ? await rig.tcp({ id, ...settings }) : await rig.udp({ id, ...settings });
  return { port: portOf(rx.address), id, stop: () => rx.stop(), publish: () => rx.publish() };
}

function metricsOf(kind: 'tcp' | 'udp', id: number): Record<string, unknown> {
  return rig.health.snapshot().find((c) => c.name === `rx:${kind}:${id}`)!.metrics;
}

const TOLERATED = CORPUS.filter((c) => c.quirks.length > 0);

for (const kind of ['tcp', 'udp'] as const) {
  const send = kind === 'tcp' ? overTcp : overUdp;

  for (const c of TOLERATED) {
    test(`${kind}: "${c.name}" (${c.panel}; ${c.source}) is ACKed in the panel's form and journaled`, async () => {
      const rx = await receiver(kind);
      const before = rig.events().length;
      const expected = expectedReply(c.ackBody, formOf(c));
      const reply = await send(rx.port, c.wire, expected.length);
      assert.equal(reply, expected);
      const rows = rig.events().slice(before);
      if (c.event === null) {
        assert.is(rows.length, 0);
      } else {
        assert.is(rows.length, 1);
        const row = rows[0]!;
        assert.equal(
          [row.account, row.protocol, row.code, row.zoneNo, row.groupNo, row.qualifier, row.receiverId],
          [
            c.event.account,
            c.event.protocol,
            c.event.code,
            c.event.zone ?? null,
            c.event.group ?? null,
            c.event.qualifier ?? null,
            rx.id,
          ],
        );
        // The raw frame is kept as it came, LF to CR (padding after the CR is not part of it).
        assert.equal(row.raw, c.wire.subarray(0, c.wire.lastIndexOf(0x0d) + 1));
      }
      // The object remembers which deviations its panel showed (migration 9), whatever else it showed before.
      const account = c.event?.account ?? /#([0-9A-Za-z]+)\[/.exec(c.ackBody)![1]!;
      const object = rig.store.objects.findByAccount(account, rx.id)[0]!;
      for (const q of c.quirks.filter((x) => kind === 'udp' || x !== 'trailing-bytes'))
        assert.ok(object.dc09Quirks?.includes(q), `${account}: ${q}`);
      rx.publish();
      const m = metricsOf(kind, rx.id);
      // Over TCP bytes after the CR are noise between frames (discarded as always), not a quirk of the frame.
      const quirks = c.quirks.filter((q) => kind === 'udp' || q !== 'trailing-bytes');
      for (const q of ['binary-crc', 'cr-counted', 'trailing-bytes', 'empty-line', 'text-account']) {
        assert.is(m[`quirk_${q.replace('-', '_')}`], quirks.includes(q as never) ? 1 : 0, q);
      }
      assert.is(m.acks, 1);
      await rx.stop();
    });
  }

  test(`${kind}: each tolerance switched off refuses its frames as before (no ACK, nothing journaled)`, async () => {
    const off = {
      tolerate_binary_crc: false,
      tolerate_cr_counted: false,
      tolerate_trailing_bytes: false,
      tolerate_empty_line: false,
    };
    const rx = await receiver(kind, off);
    const before = rig.events().length;
    for (const c of TOLERATED) {
      const reply = await send(rx.port, c.wire, 1, 300);
      const text = reply.toString('latin1');
      // Framing quirks: no answer at all. A header quirk in a well-framed frame: DUH, never ACK.
      assert.not.ok(text.includes('"ACK"'), `${c.name}: ${text}`);
      const framing = c.quirks.some(
        (q) => q === 'binary-crc' || q === 'cr-counted' || (kind === 'udp' && q === 'trailing-bytes'),
      );
      if (framing) assert.is(reply.length, 0, c.name);
      else assert.ok(text.includes('"DUH"'), c.name);
    }
    assert.is(rig.events().length, before);
    for (const o of rig.store.objects.all()) assert.ok(o.receiverId !== rx.id || o.dc09Quirks === undefined);
    rx.publish();
    const m = metricsOf(kind, rx.id);
    assert.equal([m.quirk_binary_crc, m.quirk_cr_counted, m.quirk_trailing_bytes, m.quirk_empty_line], [0, 0, 0, 0]);
    await rx.stop();
  });

  test(`${kind}: a damaged binary-CRC frame gets no reply and stores nothing`, async () => {
    const rx = await receiver(kind);
    const trikdis = TOLERATED.find((c) => c.quirks.includes('binary-crc') && c.event !== null)!;
    const damaged = Buffer.from(trikdis.wire);
    damaged[2] = damaged[2]! ^ 0x01;
    const before = rig.events().length;
    assert.is((await send(rx.port, damaged, 1, 300)).length, 0);
    assert.is(rig.events().length, before);
    rx.publish();
    assert.equal([metricsOf(kind, rx.id).rejected, metricsOf(kind, rx.id).acks], [1, 0]);
    await rx.stop();
  });

  test(`${kind}: a text account is refused by default and journaled with tolerate_text_account`, async () => {
    const wire = expectedReply('"SIA-DCS"0009L0#SHOP12[#SHOP12|Nri1/BA01]', {});
    const strict = await receiver(kind);
    const before = rig.events().length;
    assert.equal(await send(strict.port, wire, 10), expectedReply('"DUH"0009L0#SHOP12[]', {}));
    assert.is(rig.events().length, before);
    await strict.stop();
    const lenient = await receiver(kind, { tolerate_text_account: true });
    assert.equal(await send(lenient.port, wire, 10), expectedReply('"ACK"0009L0#SHOP12[]', {}));
    assert.equal(
      rig
        .events()
        .slice(before)
        .map((r) => [r.account, r.code, r.zoneNo]),
      [['SHOP12', 'BA', '01']],
    );
    lenient.publish();
    assert.is(metricsOf(kind, lenient.id).quirk_text_account, 1);
    await lenient.stop();
  });
}

test('tcp: frames of several panels in one segment and one frame over several segments are each ACKed in order', async () => {
  const rx = await receiver('tcp');
  const frames = [CORPUS[3]!, CORPUS[6]!, CORPUS[0]!, CORPUS[14]!];
  const expected = Buffer.concat(frames.map((c) => expectedReply(c.ackBody, formOf(c))));
  const socket: Socket = connect({ port: rx.port, host: LOOPBACK, noDelay: true });
  await new Promise((resolve) => socket.once('connect', resolve));
  const reply = collect(socket, 'data', expected.length, 3000);
  const wire = Buffer.concat(frames.map((c) => c.wire));
  // First three frames in one write, the last one cut in three writes.
  const cut = wire.length - frames[3]!.wire.length;
  socket.write(wire.subarray(0, cut));
  for (const [from, to] of [
    [cut, cut + 3],
    [cut + 3, cut + 20],
    [cut + 20, wire.length],
  ] as const) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    socket.write(wire.subarray(from, to));
  }
  assert.equal(await reply, expected);
  socket.destroy();
  await rx.stop();
});

test('udp: a binary-CRC panel whose timestamp fails the time test gets its NAK with a binary CRC too', async () => {
  const rx = await receiver('udp', { check_plain_timestamps: true });
  const trikdis = TOLERATED.find((c) => c.quirks.includes('binary-crc') && c.event !== null)!;
  const before = rig.events().length;
  const reply = await overUdp(rx.port, trikdis.wire, 40);
  // <LF><hi><lo>0LLL"NAK"0000R0L0A0[]_HH:MM:SS,MM-DD-YYYY<CR>, the CRC checked independently.
  const body = reply.subarray(7, reply.length - 1);
  assert.match(body.toString('latin1'), /^"NAK"0000R0L0A0\[\]_\d{2}:\d{2}:\d{2},\d{2}-\d{2}-\d{4}$/);
  assert.equal(
    [reply[0], (reply[1]! << 8) | reply[2]!, reply.subarray(3, 7).toString('latin1'), reply.at(-1)],
    [0x0a, bitwiseCrc(body), `0${body.length.toString(16).toUpperCase().padStart(3, '0')}`, 0x0d],
  );
  assert.is(rig.events().length, before);
  await rx.stop();
});

test.run();
