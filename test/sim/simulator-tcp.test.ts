import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeCommand } from '../../src/protocols/device-link/codec.js';
import { buildMessage } from '../../src/protocols/dc09/encoder.js';
import { resolveSimOptions, type SimOptionsInput } from '../../src/sim/sim-options.js';
import { Simulator } from '../../src/sim/simulator.js';
import { freePort } from '../helpers/net.js';
import { TcpPeer, type PeerOptions } from './dc09-peer.js';

const T0 = Date.UTC(2026, 0, 2, 3, 4, 5);
const STAMP = '_03:04:05,01-02-2026';
const PAD = (n: number): Buffer => Buffer.alloc(n, 0x41);
const KEY_TEXT = '0123456789abcdef';
const KEY = Buffer.from(KEY_TEXT, 'latin1');
const clock = { now: () => T0 };

async function withPeer(peerOptions: PeerOptions, fn: (peer: TcpPeer) => Promise<void>): Promise<void> {
  const peer = new TcpPeer({ now: clock.now, randomBytes: PAD, ...peerOptions });
  await peer.start();
  try {
    await fn(peer);
  } finally {
    await peer.stop();
  }
}

function sim(port: number, input: Omit<SimOptionsInput, 'port'>): Simulator {
  return new Simulator(resolveSimOptions({ port, connectRate: 0, ackTimeoutMs: 300, drainMs: 1000, ...input }), {
    clock,
    randomBytes: PAD,
  });
}

test('a bounded run stops by itself: 2 devices, 6 events, HELLO first on each connection, every event ACKed', async () => {
  await withPeer({}, async (peer) => {
    const started = Date.now();
    const summary = await sim(peer.port, { devices: 2, saturate: true, maxEvents: 6, durationMs: 20_000 }).run();
    assert.ok(Date.now() - started < 5000, 'ended on the event budget, long before the duration');
    assert.is(summary.events_sent, 6);
    assert.is(summary.events_acked, 6);
    assert.is(summary.unanswered, 0);
    assert.is(summary.device_link.hellos, 2);
    assert.is(summary.device_link.welcomes, 2);
    assert.is(peer.events.length, 6);
    assert.is(peer.connections.length, 2);
    for (const from of [0, 1]) {
      const mine = peer.received.filter((r) => r.from === from);
      assert.ok(mine[0]!.link?.type === 'hello', 'HELLO is the first frame on the connection');
    }
    assert.ok(summary.latency_ms.p99 > 0 && summary.latency_ms.p99 < 1000);
  });
});

test("a run that spends its budget before the gateway's WELCOME waits for it (up to the ACK timeout)", async () => {
  await withPeer({ welcomeDelayMs: 150 }, async (peer) => {
    const summary = await sim(peer.port, { devices: 1, saturate: true, maxEvents: 1, durationMs: 20_000 }).run();
    assert.is(summary.events_acked, 1);
    assert.is(summary.device_link.welcomes, 1, 'the WELCOME after the last ACK is counted');
  });
  // A HELLO never answered holds the run no longer than the ACK timeout (300 ms here), not its duration.
  await withPeer({ welcomeDelayMs: 60_000 }, async (peer) => {
    const started = Date.now();
    const summary = await sim(peer.port, { devices: 1, saturate: true, maxEvents: 1, durationMs: 20_000 }).run();
    assert.is(summary.device_link.welcomes, 0);
    assert.ok(Date.now() - started < 10_000, 'ended on the budget');
  });
});

test('exact frames: device 0 sends HELLO then "SIA-DCS"0001 / 0002 with its account; device 1 uses base+1', async () => {
  await withPeer({}, async (peer) => {
    await sim(peer.port, {
      devices: 2,
      saturate: true,
      maxEvents: 4,
      accountBase: '00AB0',
      uidBase: 'C0FFEE000001',
    }).run();
    const hello = peer.received.find((r) => r.link?.type === 'hello' && r.body.includes('#00AB0['))!;
    assert.match(
      hello.body.toString('latin1'),
      new RegExp(
        `^"VL-HELLO"0000#00AB0\\[V2\\|UC0FFEE000001\\|HSIM-1\\|F1\\.0\\.0\\|N[0-9A-F]{32}\\|X[0-9A-F]{64}\\]${STAMP}$`,
      ),
    );
    const dev0 = peer.events.filter((r) => r.message!.account === '00AB0').map((r) => r.raw.toString('latin1'));
    const expected = (seq: string, data: string): string =>
      buildMessage({ token: 'SIA-DCS', sequence: seq, account: '00AB0', data, timestamp: T0 }).toString('latin1');
    assert.equal(dev0, [expected('0001', '#00AB0|Nri01/BA001'), expected('0002', '#00AB0|Nri01/BR001')]);
    const dev1 = peer.events.filter((r) => r.message!.account === '00AB1');
    assert.is(dev1.length, 2);
    assert.ok(peer.received.some((r) => r.link?.type === 'hello' && r.link.uid === 'C0FFEE000002'));
  });
});

test('VL-CMD from the receiver: the device answers VL-RSP with the configured packets after the configured delay', async () => {
  await withPeer({}, async (peer) => {
    const s = sim(peer.port, {
      devices: 1,
      ratePerDevice: 0,
      durationMs: 3000,
      link: { replyPackets: 2, replyData: '0102', replyDelayMs: 150 },
    });
    s.start();
    await peer.waitFor((p) => p.sessions.has(0));
    const sentAt = performance.now();
    const key = peer.sessions.get(0)!;
    peer.send(
      0,
      encodeCommand(
        { kind: 'control', seq: 77, timestamp: T0, auth: { mode: 'omit' }, replyWanted: true, data: Buffer.from([9]) },
        { key },
      ),
    );
    await peer.waitFor((p) => p.linkMessages.filter((r) => r.link!.type === 'response').length >= 2);
    const replies = peer.linkMessages.filter((r) => r.link!.type === 'response');
    assert.ok(
      replies.every((r) => r.body.toString('latin1').startsWith('"*VL-RSP"0077[')),
      'replies are sealed with the session key',
    );
    assert.equal(
      replies.map((r) => r.link),
      [
        {
          type: 'response',
          seq: 77,
          timestamp: T0,
          encrypted: true,
          packetNumber: 1,
          packetCount: 2,
          status: 'OK',
          data: Buffer.from('0102', 'hex'),
        },
        {
          type: 'response',
          seq: 77,
          timestamp: T0,
          encrypted: true,
          packetNumber: 2,
          packetCount: 2,
          status: 'OK',
          data: Buffer.from('0102', 'hex'),
        },
      ],
    );
    assert.ok(replies[0]!.at - sentAt >= 140, `reply after ${replies[0]!.at - sentAt} ms`);
    const summary = await s.stop();
    assert.is(summary.device_link.commands, 1);
    assert.is(summary.device_link.reply_packets, 2);
  });
});

test('fault wrong-number over the socket: the peer receives exactly the packet numbers 0 and 1', async () => {
  await withPeer({}, async (peer) => {
    const s = sim(peer.port, {
      devices: 1,
      ratePerDevice: 0,
      durationMs: 3000,
      link: { replyPackets: 2, fault: 'wrong-number' },
    });
    s.start();
    await peer.waitFor((p) => p.sessions.has(0));
    peer.send(
      0,
      encodeCommand(
        { kind: 'config', seq: 5, timestamp: T0, auth: { mode: 'none' }, replyWanted: true, data: Buffer.from([1]) },
        { key: peer.sessions.get(0)! },
      ),
    );
    await peer.waitFor((p) => p.linkMessages.filter((r) => r.link!.type === 'response').length >= 2);
    const numbers = peer.linkMessages
      .filter((r) => r.link!.type === 'response')
      .map((r) => (r.link as { packetNumber: number }).packetNumber);
    assert.equal(numbers, [0, 1]);
    await s.stop();
  });
});

test('NAK then ACK: the event goes again with the same sequence and is counted once as ACKed', async () => {
  await withPeer({ answer: (_m, n) => (n === 0 ? 'nak' : 'ack') }, async (peer) => {
    const summary = await sim(peer.port, { devices: 1, saturate: true, maxEvents: 1, link: { hello: false } }).run();
    assert.equal(
      peer.events.map((r) => r.message!.sequence),
      ['0001', '0001'],
    );
    assert.is(summary.naks, 1);
    assert.is(summary.retransmits, 1);
    assert.is(summary.events_acked, 1);
  });
});

test('DUH: counted, not sent again', async () => {
  await withPeer({ answer: () => 'duh' }, async (peer) => {
    const summary = await sim(peer.port, { devices: 1, saturate: true, maxEvents: 2, link: { hello: false } }).run();
    assert.equal(
      peer.events.map((r) => r.message!.sequence),
      ['0001', '0002'],
    );
    assert.is(summary.duhs, 2);
    assert.is(summary.events_failed, 2);
    assert.is(summary.events_acked, 0);
  });
});

test('no answer: the event is sent 1 + retries times at the ACK timeout, then given up', async () => {
  await withPeer({ answer: () => 'none' }, async (peer) => {
    const summary = await sim(peer.port, {
      devices: 1,
      saturate: true,
      maxEvents: 1,
      maxRetries: 2,
      ackTimeoutMs: 100,
      link: { hello: false },
    }).run();
    assert.equal(
      peer.events.map((r) => r.message!.sequence),
      ['0001', '0001', '0001'],
    );
    assert.is(summary.ack_timeouts, 3);
    assert.is(summary.events_failed, 1);
  });
});

test('the receiver closes the connection: the device reconnects and sends the unACKed event again', async () => {
  await withPeer({ answer: (_m, n) => (n === 0 ? 'close' : 'ack') }, async (peer) => {
    const summary = await sim(peer.port, { devices: 1, saturate: true, maxEvents: 2, reconnectInitialMs: 20 }).run();
    assert.is(peer.connections.length, 2);
    assert.equal(
      peer.events.map((r) => `${r.from}:${r.message!.sequence}`),
      ['0:0001', '1:0001', '1:0002'],
    );
    assert.is(summary.connections.disconnects, 1);
    assert.is(summary.device_link.hellos, 2, 'HELLO again on the new connection');
    assert.is(summary.events_acked, 2);
  });
});

test('encryption round trip: the peer opens each event with the key, the device accepts the *ACK', async () => {
  await withPeer({ key: KEY }, async (peer) => {
    const summary = await sim(peer.port, {
      devices: 1,
      saturate: true,
      maxEvents: 3,
      key: KEY_TEXT,
      token: 'ADM-CID',
    }).run();
    assert.is(summary.events_acked, 3);
    assert.is(summary.unopened_replies, 0);
    assert.equal(
      peer.events.map((r) => [r.message!.encrypted, r.message!.data]),
      [
        [true, '#001000|1130 01 001'],
        [true, '#001000|3130 01 001'],
        [true, '#001000|1130 01 002'],
      ],
    );
    assert.ok(peer.received[0]!.body.toString('latin1').startsWith('"*VL-HELLO"0000#001000['));
  });
});

test('a receiver without the device link DUHs the HELLO (sequence 0000): no second HELLO, events unaffected', async () => {
  await withPeer({ duhHello: true }, async (peer) => {
    const summary = await sim(peer.port, { devices: 1, saturate: true, maxEvents: 3 }).run();
    assert.is(summary.device_link.hellos, 1);
    assert.is(summary.device_link.unavailable, 1);
    assert.is(summary.duhs, 0, 'the DUH to the HELLO is not taken for the DUH of event 0001');
    assert.is(summary.events_acked, 3);
  });
});

test('nobody listening: connect errors are counted, reconnects stay bounded, the run still ends', async () => {
  const port = await freePort();
  const summary = await sim(port, {
    devices: 2,
    ratePerDevice: 1,
    durationMs: 400,
    reconnectInitialMs: 20,
    maxReconnects: 3,
  }).run();
  assert.is(summary.connections.connects, 0);
  assert.ok(summary.connections.errors >= 2 && summary.connections.errors <= 8, `errors ${summary.connections.errors}`);
  assert.is(summary.events_acked, 0);
});

test('paced rate: 4 devices at 20 events/s each for 1 s send about 80 events', async () => {
  await withPeer({}, async (peer) => {
    const summary = await sim(peer.port, {
      devices: 4,
      ratePerDevice: 20,
      durationMs: 1000,
      link: { hello: false },
    }).run();
    assert.ok(summary.events_sent >= 68 && summary.events_sent <= 96, `sent ${summary.events_sent}`);
    assert.is(summary.events_acked, summary.events_sent);
    assert.is(peer.events.length, summary.events_sent);
  });
});

test('NULL link tests go out at the interval and are ACKed, not counted as events', async () => {
  await withPeer({}, async (peer) => {
    const summary = await sim(peer.port, {
      devices: 2,
      ratePerDevice: 0,
      linkTestIntervalMs: 200,
      durationMs: 1000,
      link: { hello: false },
    }).run();
    const nulls = peer.received.filter((r) => r.message?.token === 'NULL');
    assert.ok(nulls.length >= 6 && nulls.length <= 14, `NULLs ${nulls.length}`);
    assert.is(nulls[0]!.body.toString('latin1'), `"NULL"0001#001000[]${STAMP}`);
    assert.is(summary.link_tests.acked, summary.link_tests.sent);
    assert.is(summary.events_sent, 0);
  });
});

test('a mains storm: each device sends its AC loss once connected, its restore after the delay, then nothing', async () => {
  await withPeer({}, async (peer) => {
    const started = Date.now();
    const summary = await sim(peer.port, {
      devices: 3,
      token: 'ADM-CID',
      codes: 'mains',
      restoreAfterMs: 400,
      maxEvents: 6,
      durationMs: 20_000,
      link: { hello: false },
    }).run();
    assert.ok(Date.now() - started < 5000, 'ended on the event budget, long before the duration');
    assert.is(summary.events_acked, 6);
    for (const account of ['001000', '001001', '001002']) {
      const mine = peer.events.filter((r) => r.message!.account === account);
      assert.equal(
        mine.map((r) => r.message!.data),
        [`#${account}|1301 01 000`, `#${account}|3301 01 000`],
      );
      const gap = mine[1]!.at - mine[0]!.at;
      assert.ok(gap >= 350 && gap < 2000, `restore ${gap} ms after the loss`);
    }
  });
});

test('a storm takes no rate: --restore-after with --rate or --saturate is refused', () => {
  assert.throws(() => resolveSimOptions({ port: 1, restoreAfterMs: 1000, saturate: true }), /restore_after_ms/);
  assert.throws(() => resolveSimOptions({ port: 1, restoreAfterMs: 1000, ratePerDevice: 2 }), /restore_after_ms/);
  assert.is(resolveSimOptions({ port: 1, restoreAfterMs: 1000 }).ratePerDevice, 0);
});

test.run();
