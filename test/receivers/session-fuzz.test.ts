/**
 * Issue 3, "Done means": at least 100,000 random and mutated frames through the framer AND the
 * session, over a real TCP connection into a real receiver, ingest and SQLite journal: no crash,
 * no hang (bounded), bounded memory; every valid frame among the garbage is ACKed and journaled,
 * no mutated frame is, and a second device on the same receiver is not affected.
 */
import { connect, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Dc09Framer } from '../../src/protocols/dc09/frame.js';
import { LOOPBACK, waitFor } from '../helpers/net.js';
import { message, portOf, startRig } from './helpers/rig.js';
import { prng } from '../helpers/prng.js';

const ITEMS = 100_000;
const SEED = 0x5eed;

function frameFor(account: string, sequence: number): Buffer {
  return message({
    token: 'SIA-DCS',
    sequence: (sequence % 9999) + 1,
    account,
    data: `#${account}|Nri1/BA01`,
    timestamp: null,
  });
}

/** A mutation that always changes the frame: flip, truncate, splice random bytes in, or drop bytes. */
function mutate(frame: Buffer, random: () => number): Buffer {
  const out = Buffer.from(frame);
  const at = 1 + Math.floor(random() * (out.length - 2));
  switch (Math.floor(random() * 4)) {
    case 0: {
      let flip = 1 + Math.floor(random() * 255);
      // Upper to lower case of a hex letter in the CRC or length field is the same value (the framer
      // accepts either case, DC-09 transmitters send both): that would not be a corruption.
      if (at <= 8 && flip === 0x20 && /[A-F]/.test(String.fromCharCode(out[at]!))) flip = 0x01;
      out[at] = out[at]! ^ flip;
      return out;
    }
    case 1:
      return out.subarray(0, at);
    case 2:
      // No LF in the splice: an LF there would start a new frame before the intact rest, which
      // then is a valid frame and rightly ACKed.
      return Buffer.concat([
        out.subarray(0, at),
        Buffer.from(Array.from({ length: 1 + Math.floor(random() * 8) }, () => 0x0b + Math.floor(random() * 245))),
        out.subarray(at),
      ]);
    default:
      return Buffer.concat([
        out.subarray(0, at),
        out.subarray(Math.min(out.length, at + 1 + Math.floor(random() * 5))),
      ]);
  }
}

function acksOf(socket: Socket): Set<string> {
  const accounts = new Set<string>();
  const framer = new Dc09Framer();
  socket.on('data', (chunk: Buffer) => {
    for (const item of framer.push(chunk)) {
      if (item.kind !== 'frame') continue;
      const match = /^"ACK"\d{4}R1L1#([0-9A-F]+)\[\]$/.exec(item.body.toString('latin1'));
      if (match) accounts.add(match[1]!);
    }
  });
  return accounts;
}

test(`${ITEMS} random and mutated frames over one connection: valid ones ACKed and stored, nothing else, the neighbour unaffected`, async () => {
  // Every valid frame names a fresh account: the new-object allowance is not what this test is about.
  const rig = await startRig({
    admission: {
      new_objects_per_source_per_hour: 1e6,
      new_objects_per_receiver_per_hour: 1e6,
      new_objects_per_hour: 1e6,
    },
  });
  try {
    const rx = await rig.tcp({ id: 1 });
    const port = portOf(rx.address);
    const random = prng(SEED);
    const valid: string[] = [];
    const parts: Buffer[] = [];
    for (let i = 0; i < ITEMS; i++) {
      const kind = random();
      if (kind < 0.1) {
        const account = `A${valid.length.toString(16).toUpperCase().padStart(5, '0')}`;
        valid.push(account);
        parts.push(frameFor(account, i));
      } else if (kind < 0.55) {
        parts.push(mutate(frameFor(`B${i.toString(16).toUpperCase().padStart(5, '0')}`, i), random));
      } else {
        parts.push(
          Buffer.from(
            Array.from({ length: 1 + Math.floor(random() * 120) }, () =>
              random() < 0.05 ? 0x0a : Math.floor(random() * 256),
            ),
          ),
        );
      }
    }
    // Back to back: a truncated frame or garbage before a valid frame must not swallow it (the
    // framer rejects a body that meets an LF and resyncs there, docs/dc09.md).
    const stream = Buffer.concat(parts);
    const heapBefore = process.memoryUsage().heapUsed;

    const bad = connect({ host: LOOPBACK, port });
    const good = connect({ host: LOOPBACK, port });
    const badAcks = acksOf(bad);
    const goodAcks = acksOf(good);
    await Promise.all(
      [bad, good].map((s) => new Promise<void>((resolve, reject) => s.once('connect', resolve).once('error', reject))),
    );

    const neighbour: string[] = [];
    let offset = 0;
    let n = 0;
    while (offset < stream.length) {
      const size = 1 + Math.floor(random() * 1500);
      if (!bad.write(stream.subarray(offset, offset + size)))
        await new Promise((resolve) => bad.once('drain', resolve));
      offset += size;
      if (++n % 50 === 0 && neighbour.length < 200) {
        const account = `C${neighbour.length.toString(16).toUpperCase().padStart(5, '0')}`;
        neighbour.push(account);
        good.write(frameFor(account, neighbour.length));
      }
    }
    await waitFor(() => badAcks.size >= valid.length && goodAcks.size >= neighbour.length, 60_000, 50).catch(
      () => undefined,
    );

    assert.equal(
      [...badAcks].filter((a) => !a.startsWith('A')),
      [],
      'a mutated frame was ACKed',
    );
    assert.is(badAcks.size, valid.length, `ACKed ${badAcks.size} of ${valid.length} valid frames`);
    assert.equal(
      [...badAcks].filter((a) => !a.startsWith('A')),
      [],
      'a mutated frame was ACKed',
    );
    assert.equal([...goodAcks].sort(), neighbour.sort());
    const stored = new Set<string>();
    for (let after = 0; ; ) {
      const batch = rig.store.events.readAfter(after, 5000);
      if (batch.length === 0) break;
      for (const event of batch) stored.add(event.account);
      after = batch[batch.length - 1]!.id;
    }
    assert.ok(
      valid.every((a) => stored.has(a)),
      'every ACKed frame is in the journal',
    );
    assert.ok(![...stored].some((a) => a.startsWith('B')), 'no mutated frame is in the journal');
    const grown = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
    assert.ok(grown < 256, `heap grew ${grown.toFixed(0)} MB`);
    assert.ok(Number(rig.health.get('rx:tcp:1')?.metrics.rejected ?? 0) > 10_000, 'the framer rejected the garbage');
    bad.destroy();
    good.destroy();
  } finally {
    await rig.close();
  }
});

test.run();
