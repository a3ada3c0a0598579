/**
 * Type 3 (COM) Ademco 685 output over a real pty pair (socat): the 685 reader on the far end of the line reads every
 * message by its fixed positions and ACKs, NAKs or stays silent; the bytes, the resend on NAK and the failed /
 * restored supervision are the TCP output's.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Service } from '../../src/core/service.js';
import { waitFor } from '../helpers/net.js';
import { PtyPair } from '../helpers/pty-pair.js';
import { Ademco685Framer, Ademco685Peer } from './helpers/ademco685-peer.js';
import { answer } from './helpers/tcp-ack-peer.js';
import { FAST, cidEvent, siaEvent, startOutputFixture, type OutputFixture } from './helpers/output-fixture.js';
import { SerialFarEnd, testSerialLines } from './helpers/serial-far-end.js';

/** The 685 reader on a serial port: the TCP reader's framing, reading and policy, fed by the line. */
class SerialReader extends SerialFarEnd {
  readonly peer = new Ademco685Peer();
  private framer = new Ademco685Framer();

  override open(path: string): Promise<void> {
    this.framer = new Ademco685Framer();
    return super.open(path);
  }

  protected received(chunk: Buffer, reply: (bytes: Buffer) => void): void {
    this.framer.push(chunk, (text) => answer({ write: reply, destroy: () => undefined }, this.peer.take(text)));
  }
}

/** Consecutive repeats (a message sent again) counted once: what arrived, in order. */
function onceEach(texts: string[]): string[] {
  return texts.filter((t, i) => i === 0 || texts[i - 1] !== t);
}

let fx: OutputFixture;
let pty: PtyPair;
let reader: SerialReader;
let out: Service;

test.before.each(async () => {
  fx = await startOutputFixture();
  pty = new PtyPair();
  await pty.start();
  reader = new SerialReader();
  await reader.open(pty.b);
  out = fx.output(
    { type: 3, protocol: 'ADEMCO-685', identificator: pty.a, receiver_number: 3, line_number: 0 },
    {
      timings: { ...FAST, retries: 1 },
      serial: testSerialLines(fx),
    },
  );
});

test.after.each(async () => {
  await out.stop();
  await reader.close();
  await pty.close();
  await fx.cleanup();
});

test('alarm, restore, closing by user, test and a SIA event without Contact ID code go out byte for byte', async () => {
  await out.start();
  const ids = await fx.append([
    cidEvent(),
    cidEvent({ qualifier: 'R' }),
    cidEvent({ qualifier: 'R', code: '401', groupNo: '01', zoneNo: '012' }),
    cidEvent({ code: '602', groupNo: null, zoneNo: null }),
    siaEvent({ code: 'XX', groupNo: '1', zoneNo: '7' }),
  ]);
  await waitFor(() => fx.store.cursors.get(1) === ids[4], 20_000);
  // A message whose ACK came after the ACK timeout (a busy machine) is sent again: at least once, in order.
  assert.equal(onceEach(reader.peer.events()), [
    '30 1234 18 E130 01 C015 ',
    '30 1234 18 R130 01 C015 ',
    '30 1234 18 R401 01 U012 ',
    '30 1234 18 E602 00 C000 ',
    '30 1234 18 E140 01 C007 ',
  ]);
  assert.ok(reader.peer.messages.every((m) => m.kind === 'event'));
  assert.is(fx.health.get('out:1')?.metrics.protocol, 'ADEMCO-685');
});

test('NAK: sent again; silence: failed after 2 transmissions, OKAY probes, restored and resumed in order', async () => {
  let answering = true;
  reader.peer.policy = (m, copy) =>
    !answering ? 'silent' : m.kind === 'event' && m.number === '001' && copy === 1 ? 'nak' : 'ack';
  await out.start();
  const [first] = await fx.append([cidEvent({ zoneNo: '001' })]);
  await waitFor(() => fx.store.cursors.get(1) === first, 20_000);
  // NAKed, then sent again (once more, should that copy's ACK come after the timeout on a busy machine).
  assert.equal(reader.peer.events().slice(0, 2), ['30 1234 18 E130 01 C001 ', '30 1234 18 E130 01 C001 ']);
  assert.equal(reader.peer.distinctEvents(), ['30 1234 18 E130 01 C001 ']);
  const firstCopies = reader.peer.events().length;
  answering = false;
  await fx.append([cidEvent({ zoneNo: '002' })]);
  await waitFor(() => fx.states.length === 1, 4000);
  assert.equal(fx.states, [{ output: 1, state: 'failed' }]);
  assert.equal(reader.peer.events().slice(firstCopies), ['30 1234 18 E130 01 C002 ', '30 1234 18 E130 01 C002 ']);
  await fx.append([cidEvent({ zoneNo: '003' })]);
  await waitFor(() => reader.peer.okays() >= 1, 2000);
  answering = true;
  await waitFor(() => fx.states.length === 2, 3000);
  assert.equal(fx.states[1], { output: 1, state: 'restored' });
  await waitFor(() => reader.peer.distinctEvents().length === 3, 3000);
  assert.equal(reader.peer.distinctEvents().slice(1), ['30 1234 18 E130 01 C002 ', '30 1234 18 E130 01 C003 ']);
});

test.run();
