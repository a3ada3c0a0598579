import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Dc09Framer } from '../../src/protocols/dc09/frame.js';
import { decodeLinkBody, encodeResponse } from '../../src/protocols/device-link/codec.js';
import type { CommandAuth, CommandMessage } from '../../src/protocols/device-link/messages.js';
import { ReplyAssembler } from '../../src/protocols/device-link/reply-assembler.js';
import { answerCommand, answerTime } from '../../src/sim/link-responder.js';
import { DeviceHandshake } from '../../src/sim/link-handshake.js';
import { resolveSimOptions, type LinkBehaviourInput, type LinkBehaviour } from '../../src/sim/sim-options.js';

const T0 = Date.UTC(2026, 0, 2, 3, 4, 5);
const PAD = (n: number): Buffer => Buffer.alloc(n, 0x41);
const KEY = Buffer.from('0123456789abcdef', 'latin1');
const STAMP = '_03:04:05,01-02-2026';

function behaviour(link: LinkBehaviourInput = {}): LinkBehaviour {
  return resolveSimOptions({ port: 1, link }).link;
}

function command(
  over: {
    auth?: CommandAuth;
    replyWanted?: boolean;
    data?: Buffer;
    encrypted?: boolean;
    kind?: 'control' | 'config';
  } = {},
) {
  const c: CommandMessage & { encrypted: boolean } = {
    type: 'command',
    kind: over.kind ?? 'control',
    seq: 42,
    timestamp: T0,
    auth: over.auth ?? { mode: 'omit' },
    replyWanted: over.replyWanted ?? true,
    data: over.data ?? Buffer.from([0xab, 0x01]),
    encrypted: over.encrypted ?? false,
  };
  return c;
}

function bodies(frames: Buffer[]): string[] {
  const framer = new Dc09Framer();
  return frames.map((f) => {
    const item = framer.push(f)[0];
    if (item?.kind !== 'frame') throw new Error('not a frame');
    return item.body.toString('latin1');
  });
}

/** Feeds the frames to the gateway's own assembler: what the API would answer. */
function assemble(frames: Buffer[], kind: 'control' | 'config' = 'control', key: Buffer | null = null): string {
  const assembler = new ReplyAssembler(kind);
  const framer = new Dc09Framer();
  for (const frame of frames) {
    const item = framer.push(frame)[0]!;
    if (item.kind !== 'frame') throw new Error('not a frame');
    const message = decodeLinkBody(item.body, key);
    if ('error' in message || message.type !== 'response') throw new Error('not a VL-RSP');
    const step = assembler.push(message);
    if (step.state === 'done')
      return step.reply.ok ? `ok:${step.reply.packets.map((p) => p.toString('hex')).join(',')}` : step.reply.error;
  }
  return 'pending';
}

const m = { now: T0, key: null, randomBytes: PAD };

test('HELLO: version 2, uid, hw id, firmware, account, a fresh nonce, and an enrolment key while the device has none', () => {
  const identity = { seq: 1, uid: 'A10000000000', account: '001000', hwId: 'SIM-1', firmware: '1.0.0' };
  const [text] = bodies([new DeviceHandshake(identity, new Map()).hello(T0, null)]);
  assert.match(
    text!,
    new RegExp(
      `^"VL-HELLO"0001#001000\\[V2\\|UA10000000000\\|HSIM-1\\|F1\\.0\\.0\\|N[0-9A-F]{32}\\|X[0-9A-F]{64}\\]${STAMP}$`,
    ),
  );
  const keyed = new DeviceHandshake(identity, new Map([['A10000000000', Buffer.alloc(32)]]));
  assert.not.match(bodies([keyed.hello(T0, null)])[0]!, /\|X/);
});

test('encrypted HELLO opens with the receiver key', () => {
  const identity = { seq: 7, uid: 'A10000000001', account: '001001', hwId: 'SIM-1', firmware: '1.0.0' };
  const [text] = bodies([new DeviceHandshake(identity, new Map()).hello(T0, KEY)]);
  assert.ok(text!.startsWith('"*VL-HELLO"0007#001001['));
  const decoded = decodeLinkBody(Buffer.from(text!, 'latin1'), KEY);
  assert.ok(!('error' in decoded) && decoded.type === 'hello' && decoded.uid === 'A10000000001' && decoded.encrypted);
});

test('default answer: one OK packet echoing the command data; the assembler returns it', () => {
  const frames = answerCommand(command(), behaviour(), m);
  assert.equal(bodies(frames), [`"VL-RSP"0042[N1|C1|SOK|DAB01]${STAMP}`]);
  assert.is(assemble(frames), 'ok:ab01');
});

test('three packets of configured data, numbered 1..3 of 3', () => {
  const frames = answerCommand(command(), behaviour({ replyPackets: 3, replyData: 'c0ffee' }), m);
  assert.equal(bodies(frames), [
    `"VL-RSP"0042[N1|C3|SOK|DC0FFEE]${STAMP}`,
    `"VL-RSP"0042[N2|C3|SOK|DC0FFEE]${STAMP}`,
    `"VL-RSP"0042[N3|C3|SOK|DC0FFEE]${STAMP}`,
  ]);
  assert.is(assemble(frames), 'ok:c0ffee,c0ffee,c0ffee');
});

test('a command without Q1 gets its status only: one packet, no data', () => {
  const frames = answerCommand(command({ replyWanted: false }), behaviour({ replyPackets: 3 }), m);
  assert.equal(bodies(frames), [`"VL-RSP"0042[N1|C1|SOK|D]${STAMP}`]);
});

test('fault wrong-number: packets numbered 0..n-1, which the gateway reports as INVALID_PACKET_NUMBER', () => {
  const frames = answerCommand(command(), behaviour({ replyPackets: 2, fault: 'wrong-number' }), m);
  assert.equal(bodies(frames), [`"VL-RSP"0042[N0|C2|SOK|DAB01]${STAMP}`, `"VL-RSP"0042[N1|C2|SOK|DAB01]${STAMP}`]);
  assert.is(assemble(frames), 'INVALID_PACKET_NUMBER');
});

test('fault wrong-count: every packet declares count 0, which the gateway reports as INVALID_PACKET_COUNT', () => {
  const frames = answerCommand(command(), behaviour({ replyPackets: 2, fault: 'wrong-count' }), m);
  assert.equal(bodies(frames), [`"VL-RSP"0042[N1|C0|SOK|DAB01]${STAMP}`, `"VL-RSP"0042[N2|C0|SOK|DAB01]${STAMP}`]);
  assert.is(assemble(frames), 'INVALID_PACKET_COUNT');
});

test('fault silence: no frame at all', () => {
  assert.equal(answerCommand(command(), behaviour({ fault: 'silence' }), m), []);
});

test('faults mpass, bad and rej: one packet with that status and no data; REJ is CONFIG_REJECTED for a config', () => {
  const mp = answerCommand(command(), behaviour({ fault: 'mpass' }), m);
  assert.equal(bodies(mp), [`"VL-RSP"0042[N1|C1|SMPASS|D]${STAMP}`]);
  assert.is(assemble(mp), 'MPASS_IS_INCORRECT');
  const bad = answerCommand(command(), behaviour({ fault: 'bad' }), m);
  assert.equal(bodies(bad), [`"VL-RSP"0042[N1|C1|SBAD|D]${STAMP}`]);
  assert.is(assemble(bad), 'BAD_DATA');
  const rej = answerCommand(command({ kind: 'config' }), behaviour({ fault: 'rej' }), m);
  assert.equal(bodies(rej), [`"VL-RSP"0042[N1|C1|SREJ|D]${STAMP}`]);
  assert.is(assemble(rej, 'config'), 'CONFIG_REJECTED');
});

test('master password: the right code and the omit flag pass; a wrong code or none gets MPASS', () => {
  const b = behaviour({ masterPassword: 's3cret' });
  assert.is(assemble(answerCommand(command({ auth: { mode: 'code', code: 's3cret' } }), b, m)), 'ok:ab01');
  assert.is(assemble(answerCommand(command({ auth: { mode: 'omit' } }), b, m)), 'ok:ab01');
  assert.is(assemble(answerCommand(command({ auth: { mode: 'code', code: 'guess' } }), b, m)), 'MPASS_IS_INCORRECT');
  assert.is(assemble(answerCommand(command({ auth: { mode: 'none' } }), b, m)), 'MPASS_IS_INCORRECT');
});

test('an encrypted command gets encrypted replies; a plain one plain replies even when the device has a key', () => {
  const enc = answerCommand(command({ encrypted: true }), behaviour(), { ...m, key: KEY });
  assert.ok(bodies(enc)[0]!.startsWith('"*VL-RSP"0042['));
  assert.is(assemble(enc, 'control', KEY), 'ok:ab01');
  const plain = answerCommand(command(), behaviour(), { ...m, key: KEY });
  assert.equal(
    plain[0],
    encodeResponse({
      seq: 42,
      timestamp: T0,
      packetNumber: 1,
      packetCount: 1,
      status: 'OK',
      data: Buffer.from([0xab, 0x01]),
    }),
  );
});

test('VL-TIME gets VL-ACK with the same request id', () => {
  const frame = answerTime({ type: 'time', seq: 9, timestamp: T0, encrypted: false }, m);
  assert.equal(bodies([frame]), [`"VL-ACK"0009[]${STAMP}`]);
});

test.run();
