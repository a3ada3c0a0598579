import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildMessage } from '../../src/protocols/dc09/encoder.js';
import { resolveSimOptions, type SimOptionsInput } from '../../src/sim/sim-options.js';
import { Simulator } from '../../src/sim/simulator.js';
import { UdpPeer, type PeerOptions } from './dc09-peer.js';

const T0 = Date.UTC(2026, 0, 2, 3, 4, 5);
const PAD = (n: number): Buffer => Buffer.alloc(n, 0x41);
const clock = { now: () => T0 };

async function withPeer(peerOptions: PeerOptions, fn: (peer: UdpPeer) => Promise<void>): Promise<void> {
  const peer = new UdpPeer({ now: clock.now, randomBytes: PAD, ...peerOptions });
  await peer.start();
  try {
    await fn(peer);
  } finally {
    await peer.stop();
  }
}

function sim(port: number, input: Omit<SimOptionsInput, 'port'>): Simulator {
  return new Simulator(
    resolveSimOptions({ port, transport: 'udp', connectRate: 0, ackTimeoutMs: 200, drainMs: 1000, ...input }),
    {
      clock,
      randomBytes: PAD,
    },
  );
}

test('UDP: one socket (source port) per device, one frame per datagram, every event ACKed', async () => {
  await withPeer({}, async (peer) => {
    const summary = await sim(peer.port, { devices: 3, saturate: true, maxEvents: 9 }).run();
    assert.is(summary.events_acked, 9);
    assert.is(peer.sources.length, 3);
    assert.is(peer.events.length, 9);
    assert.is(summary.device_link.hellos, 0, 'no device link over UDP');
    const first = peer.events.find((r) => r.message!.account === '001002')!;
    assert.is(
      first.raw.toString('latin1'),
      buildMessage({
        token: 'SIA-DCS',
        sequence: '0001',
        account: '001002',
        data: '#001002|Nri01/BA001',
        timestamp: T0,
      }).toString('latin1'),
    );
  });
});

test('UDP: a lost reply is made good by the retransmission with the same sequence', async () => {
  await withPeer({ answer: (_m, n) => (n === 0 ? 'none' : 'ack') }, async (peer) => {
    const summary = await sim(peer.port, { devices: 1, saturate: true, maxEvents: 1, ackTimeoutMs: 100 }).run();
    assert.equal(
      peer.events.map((r) => r.message!.sequence),
      ['0001', '0001'],
    );
    assert.is(summary.retransmits, 1);
    assert.is(summary.events_acked, 1);
  });
});

test('UDP encrypted with a 6-character receiver password: the peer opens it with the derived key', async () => {
  const { receiverPasswordKey } = await import('../../src/protocols/dc09/crypto.js');
  const key = receiverPasswordKey('pa55wd');
  await withPeer({ key }, async (peer) => {
    const summary = await sim(peer.port, { devices: 1, saturate: true, maxEvents: 2, key: 'pa55wd' }).run();
    assert.is(summary.events_acked, 2);
    assert.equal(
      peer.events.map((r) => r.message!.data),
      ['#001000|Nri01/BA001', '#001000|Nri01/BR001'],
    );
  });
});

test.run();
