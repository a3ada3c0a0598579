/**
 * The session without sockets (aedes test style): a recording io, and an ingest whose commits the
 * test releases by hand, so ordering and backpressure are observable exactly.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/logger.js';
import { LinkRegistry } from '../../src/devices/link-registry.js';
import type { IngestItem, IngestResult, IngestSink, SessionLog } from '../../src/ingest/types.js';
import { encodeFrame } from '../../src/protocols/dc09/frame.js';
import { encodeHello } from '../../src/protocols/device-link/codec.js';
import { FrameSession } from '../../src/receivers/frame-session.js';
import { DeviceHandshake } from '../../src/sim/link-handshake.js';
import type { DatagramChannel, StreamChannel, Transport } from '../../src/receivers/frame-channel.js';
import { Dc09Rules } from '../../src/receivers/dc09-rules.js';
import { ReceiverCounters } from '../../src/receivers/receiver-counters.js';
import { corruptCrc, message, rxSettings } from './helpers/rig.js';

class RecordingIo implements StreamChannel {
  readonly framing = 'stream';
  readonly remoteAddress = '192.0.2.1:4000';
  readonly sessionRows: boolean;
  readonly transport: Transport;
  constructor(transport: Transport = 'tcp') {
    this.transport = transport;
    this.sessionRows = transport === 'tcp';
  }
  readonly writes: Buffer[] = [];
  paused = false;
  full = false;
  write(data: Buffer): boolean {
    this.writes.push(data);
    return !this.full;
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
  text(): string[] {
    return this.writes.map((w) => w.toString('latin1'));
  }
}

interface Held {
  items: readonly IngestItem[];
  resolve: (r: IngestResult[]) => void;
  reject: (e: unknown) => void;
}

class HeldIngest {
  readonly held: Held[] = [];
  readonly closed: SessionLog[] = [];
  submit(items: readonly IngestItem[]): Promise<IngestResult[]> {
    return new Promise((resolve, reject) => this.held.push({ items, resolve, reject }));
  }
  submitTo(items: readonly IngestItem[], sink: IngestSink): void {
    this.held.push({ items, resolve: (r) => sink.committed(r), reject: (e) => sink.failed(e) });
  }
  closeSession(session: SessionLog): void {
    this.closed.push(session);
  }
  /** Commits the n-th held batch: every item gets object 1 and one id per event. */
  commit(index: number): void {
    const batch = this.held[index]!;
    batch.resolve(
      batch.items.map((item, i) => ({
        objectId: 1,
        eventIds: item.kind === 'frame' ? item.events.map((_, k) => 100 + i * 10 + k) : [],
        ...(item.kind === 'hello' ? { object: { id: 1, uid: item.uid, account: item.account ?? '' } as never } : {}),
      })),
    );
  }
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function setup(maxInFlight = 64, settings = rxSettings(), transport: Transport = 'tcp') {
  const io = new RecordingIo(transport);
  const ingest = new HeldIngest();
  const counters = new ReceiverCounters();
  const links = new LinkRegistry({ objects: { get: () => null }, clock: systemClock, logger: silentLogger });
  const profile = new Dc09Rules(transport === 'tcp' ? 'tcp' : 'com', settings);
  const session = new FrameSession(io, {
    rules: profile,
    ...(transport === 'tcp' ? { deviceLink: profile } : {}),
    counters,
    ingest,
    links,
    clock: systemClock,
    logger: silentLogger,
    maxInFlight,
  });
  return { io, ingest, counters, links, session };
}

const ack = (seq: string): string => encodeFrame(`"ACK"${seq}R1L1#1234[]`).toString('latin1');
const duh = (seq: string): string => encodeFrame(`"DUH"${seq}R1L1#1234[]`).toString('latin1');

test('nothing is written before the commit; then the ACK, and a DUH behind it, go out in frame order in one write', async () => {
  const { io, ingest, session } = setup();
  session.feed(Buffer.concat([message({ token: 'SIA-DCS', sequence: 1 }), encodeFrame('"XYZ"0002R1L1#1234[]')]));
  assert.equal(io.writes, []);
  assert.is(ingest.held.length, 1);
  assert.is(ingest.held[0]!.items.length, 1);
  ingest.commit(0);
  await tick();
  assert.equal(io.text(), [ack('0001') + duh('0002')]);
});

test('a later chunk committed first still waits behind the earlier frame', async () => {
  const { io, ingest, session } = setup();
  session.feed(message({ token: 'SIA-DCS', sequence: 11 }));
  session.feed(message({ token: 'SIA-DCS', sequence: 12 }));
  ingest.commit(1);
  await tick();
  assert.equal(io.writes, []);
  ingest.commit(0);
  await tick();
  assert.equal(io.text(), [ack('0011') + ack('0012')]);
});

test('a failed commit sends no ACK; the replies after it still go out in order', async () => {
  const { io, ingest, session, counters } = setup();
  session.feed(message({ token: 'SIA-DCS', sequence: 21 }));
  session.feed(Buffer.concat([encodeFrame('"XYZ"0022R1L1#1234[]'), message({ token: 'SIA-DCS', sequence: 23 })]));
  ingest.held[0]!.reject(new Error('disk full'));
  ingest.commit(1);
  await tick();
  assert.is(io.text().join(''), duh('0022') + ack('0023'));
  assert.equal([counters.acks, counters.duhs, counters.events], [1, 1, 1]);
});

test('a rejected frame gets no reply and takes no place in the reply order', async () => {
  const { io, ingest, session, counters } = setup();
  session.feed(
    Buffer.concat([
      corruptCrc(message({ token: 'SIA-DCS', sequence: 31 })),
      message({ token: 'SIA-DCS', sequence: 32 }),
    ]),
  );
  ingest.commit(0);
  await tick();
  assert.equal(io.text(), [ack('0032')]);
  assert.is(counters.rejected, 1);
});

test('reading pauses while maxInFlight frames await their commit and resumes once they commit', async () => {
  const { io, ingest, session } = setup(4);
  session.feed(Buffer.concat([1, 2, 3].map((n) => message({ token: 'SIA-DCS', sequence: n }))));
  assert.is(io.paused, false);
  session.feed(message({ token: 'SIA-DCS', sequence: 4 }));
  assert.is(io.paused, true);
  assert.is(session.pendingReplies, 4);
  ingest.commit(0);
  await tick();
  assert.is(io.paused, false);
  assert.equal(io.text(), [ack('0001') + ack('0002') + ack('0003')]);
});

test('reading resumes only once at most half of maxInFlight is left', async () => {
  const { io, ingest, session } = setup(4);
  for (const n of [1, 2, 3, 4]) session.feed(message({ token: 'SIA-DCS', sequence: n }));
  assert.is(io.paused, true);
  ingest.commit(0);
  await tick();
  assert.is(io.paused, true, '3 of 4 still in flight');
  ingest.commit(1);
  await tick();
  assert.is(io.paused, false, '2 of 4 in flight');
});

test('reading pauses while the peer does not take its replies and resumes on drain', async () => {
  const { io, ingest, session } = setup();
  io.full = true;
  session.feed(message({ token: 'SIA-DCS', sequence: 41 }));
  ingest.commit(0);
  await tick();
  assert.is(io.paused, true);
  io.full = false;
  session.drained();
  assert.is(io.paused, false);
});

test('close drops pending replies and queues the session row to be closed', async () => {
  const { io, ingest, session } = setup();
  session.feed(message({ token: 'SIA-DCS', sequence: 51 }));
  session.close();
  ingest.commit(0);
  await tick();
  assert.equal(io.writes, []);
  assert.equal(ingest.closed, [session.log]);
  session.feed(message({ token: 'SIA-DCS', sequence: 52 }));
  assert.is(ingest.held.length, 1, 'a closed session reads nothing more');
});

test('a connection that never sent a valid message has no session row to close', () => {
  const { ingest, session } = setup();
  session.feed(Buffer.from('hello?\r\n'));
  session.close();
  assert.equal(ingest.closed, []);
});

function bodyOfText(frame: string): Buffer {
  return Buffer.from(frame.slice(9, -1), 'latin1');
}

test('a HELLO is challenged at once; only a good proof is stored, and the WELCOME goes out after its commit; a second HELLO is ignored', async () => {
  const { io, ingest, session, links, counters } = setup();
  const device = new DeviceHandshake(
    { seq: 5, uid: '00A1B2C3D4', account: '1234', hwId: 'HW-1', firmware: '' },
    new Map(),
  );
  const hello = device.hello(Date.now(), null);
  session.feed(hello);
  assert.is(ingest.held.length, 0, 'nothing is stored for a HELLO alone');
  assert.match(io.text()[0]!, /"VL-CHAL"0005\[G[0-9A-F]{32}\|X[0-9A-F]{64}\]_/);
  const challenge = device.decode(bodyOfText(io.text()[0]!), null);
  assert.ok(!('error' in challenge) && challenge.type === 'challenge');
  session.feed(device.proof(challenge as never, Date.now())!);
  assert.equal(
    ingest.held[0]!.items.map((i) => i.kind === 'hello' && [i.uid, i.account, i.hwId]),
    [['00A1B2C3D4', '1234', 'HW-1']],
  );
  assert.is(io.text().length, 1, 'no WELCOME before the commit');
  ingest.commit(0);
  await tick();
  assert.match(io.text()[1]!, /"\*VL-WELCOME"0005\[/);
  const welcome = device.decode(bodyOfText(io.text()[1]!), null);
  assert.ok(
    !('error' in welcome) && device.welcomed(welcome),
    'the WELCOME is sealed with the session key and proves the gateway',
  );
  assert.ok(links.get(1), 'the link is attached after the WELCOME');
  assert.equal(session.device, { objectId: 1, uid: '00A1B2C3D4', account: '1234' });
  assert.equal(links.keys.state('00A1B2C3D4', Date.now(), 'open').key !== null, true, 'the enrolled key is stored');
  session.feed(hello);
  assert.is(ingest.held.length, 1);
  assert.is(counters.linkIgnored, 1);
  session.close();
  assert.is(links.get(1), undefined, 'closing the connection detaches the link');
});

test('a proof made with another key is refused AUTH and stores nothing', async () => {
  const { io, ingest, session, links } = setup();
  await links.keys.enrol('00A1B2C3D4', Buffer.alloc(32, 1));
  const stranger = new DeviceHandshake(
    { seq: 5, uid: '00A1B2C3D4', account: '9999', hwId: '', firmware: '' },
    new Map([['00A1B2C3D4', Buffer.alloc(32, 2)]]),
  );
  session.feed(stranger.hello(Date.now(), null));
  const challenge = stranger.decode(bodyOfText(io.text()[0]!), null);
  session.feed(stranger.proof(challenge as never, Date.now())!);
  assert.match(io.text()[1]!, /"VL-REFUSE"0005\[EAUTH\]_/);
  assert.is(ingest.held.length, 0);
  assert.is(links.size, 0);
});

test('a plain HELLO on a receiver that requires encryption is refused in clear, in frame order', async () => {
  const { io, ingest, session } = setup(
    64,
    rxSettings({ encryption_password: 'VigilTestKey0001', require_encryption: true }),
  );
  session.feed(encodeHello({ seq: 6, timestamp: null, version: 2, uid: '00A1B2C3D4', nonce: '00'.repeat(16) }));
  assert.is(ingest.held.length, 0);
  assert.match(io.text()[0]!, /"VL-REFUSE"0006\[EENC\]_/);
});

test('a serial stream journals transport "serial", no session row, and counts a HELLO as an ignored link message', async () => {
  const { io, ingest, session, counters } = setup(64, rxSettings(), 'serial');
  session.feed(encodeHello({ seq: 7, timestamp: null, version: 2, uid: '00A1B2C3D4', nonce: '00'.repeat(16) }));
  session.feed(message({ token: 'SIA-DCS', sequence: 61 }));
  const item = ingest.held[0]!.items[0]!;
  assert.equal(
    [item.kind, item.transport, item.remoteAddress, item.session],
    ['frame', 'serial', '192.0.2.1:4000', null],
  );
  assert.is(counters.linkIgnored, 1);
  ingest.commit(0);
  await tick();
  assert.equal(io.text(), [ack('0061')]);
  session.close();
  assert.equal(ingest.closed, []);
});

/** A datagram channel that records what it is told, per peer. */
function datagramSetup(maxInFlight = 2) {
  const ingest = new HeldIngest();
  const counters = new ReceiverCounters();
  const links = new LinkRegistry({ objects: { get: () => null }, clock: systemClock, logger: silentLogger });
  const sent: Array<[string, string]> = [];
  const acked: string[] = [];
  const channel: DatagramChannel<string> = {
    framing: 'datagram',
    transport: 'udp',
    reply: (data, peer) => sent.push([peer, data.toString('latin1')]),
    acked: (peer) => acked.push(peer),
  };
  const session = new FrameSession(channel, {
    rules: new Dc09Rules('udp', rxSettings()),
    counters,
    ingest,
    links,
    clock: systemClock,
    logger: silentLogger,
    maxInFlight,
  });
  return { ingest, counters, session, sent, acked };
}

test('datagrams: each is answered to its own peer, a DUH at once, an ACK only after its commit', async () => {
  const { ingest, session, sent, acked } = datagramSetup();
  session.feedDatagram(message({ token: 'SIA-DCS', sequence: 71 }), '192.0.2.7:1', 'a');
  session.feedDatagram(encodeFrame('"XYZ"0072R1L1#1234[]'), '192.0.2.8:2', 'b');
  assert.equal(sent, [['b', duh('0072')]], "the DUH does not wait behind the other peer's commit");
  const item = ingest.held[0]!.items[0]!;
  assert.equal([item.transport, item.remoteAddress, item.session], ['udp', '192.0.2.7:1', null]);
  ingest.commit(0);
  await tick();
  assert.equal(sent, [
    ['b', duh('0072')],
    ['a', ack('0071')],
  ]);
  assert.equal(acked, ['a'], 'only the committed datagram makes its peer known');
});

test('datagrams: a bad one and a failed commit get no reply; beyond maxInFlight they are dropped, never paused', async () => {
  const { ingest, session, sent, acked, counters } = datagramSetup(2);
  session.feedDatagram(corruptCrc(message({ token: 'SIA-DCS', sequence: 81 })), 'x:1', 'bad');
  session.feedDatagram(message({ token: 'SIA-DCS', sequence: 82 }), 'x:1', 'one');
  session.feedDatagram(message({ token: 'SIA-DCS', sequence: 83 }), 'x:1', 'two');
  session.feedDatagram(message({ token: 'SIA-DCS', sequence: 84 }), 'x:1', 'three');
  assert.is(session.isPaused, false);
  assert.equal([counters.rejected, counters.dropped, ingest.held.length], [1, 1, 2]);
  ingest.held[0]!.reject(new Error('disk full'));
  ingest.commit(1);
  await tick();
  assert.equal(sent, [['two', ack('0083')]]);
  assert.equal(acked, ['two'], 'a rejected, dropped or failed datagram makes no peer known');
});

test.run();
