/**
 * `vigil sim --serial` against a real COM receiver over a socat pty: DC-09 with a window of frames in flight and
 * AES, MLR2 lines with a heartbeat, every message ACKed and journaled; the flags parse as documented.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { serialLineFactory } from '../../hw/serial/index.js';
import { HealthRegistry } from '../../src/core/health.js';
import { silentLogger } from '../../src/core/logger.js';
import { parseSerialSimArgs } from '../../src/sim/serial-sim-cli.js';
import { SerialSimulator, type SerialSimOptions } from '../../src/sim/serial-sim.js';
import { startComRig, type ComRig } from '../receivers/helpers/com-rig.js';
import { PASSWORD16 } from '../receivers/helpers/rig.js';

async function simulate(rig: ComRig, options: Partial<SerialSimOptions>) {
  const p = rig.peer();
  await new Promise<void>((resolve) => p.close(() => resolve()));
  const line = serialLineFactory({ health: new HealthRegistry(), logger: silentLogger })({
    path: rig.pty.b,
    baudRate: 9600,
    dataBits: 8,
    parity: 'none',
    stopBits: 1,
    flowControl: 'none',
    owner: 'sim',
  });
  await line.start();
  try {
    const base = parseSerialSimArgs(['--serial', rig.pty.b])!.options;
    return await new SerialSimulator(line, { ...base, durationMs: 20_000, ...options }).run();
  } finally {
    await line.stop();
  }
}

test('DC-09 over a COM line: 40 events with 4 frames in flight, AES, all ACKed and journaled', async () => {
  const rig = await startComRig({ encryption_password: PASSWORD16 });
  try {
    const summary = await simulate(rig, { events: 40, window: 4, key: Buffer.from(PASSWORD16, 'latin1') });
    assert.equal([summary.events_sent, summary.events_acked, summary.events_failed, summary.naks], [40, 40, 0, 0]);
    assert.is(rig.events().length, 40);
    assert.ok(rig.events().every((e) => e.encrypted && e.transport === 'serial'));
  } finally {
    await rig.close();
  }
});

test('MLR2 lines: events one at a time, with heartbeats while idle; all ACKed, heartbeats not journaled', async () => {
  const rig = await startComRig({ protocol: 'MLR2' });
  try {
    // 4 events 250 ms apart, a heartbeat after 50 ms idle: heartbeats fall into the gaps.
    const summary = await simulate(rig, { protocol: 'MLR2', events: 4, ratePerS: 4, heartbeatMs: 50, window: 1 });
    assert.equal([summary.events_acked, summary.events_failed], [4, 0]);
    assert.ok(summary.heartbeats >= 1, `heartbeats ${summary.heartbeats}`);
    assert.equal(
      rig.events().map((e) => e.zoneNo),
      ['001', '002', '003', '004'],
    );
  } finally {
    await rig.close();
  }
});

test('flags: defaults, the wire format sets the bits per character, bad values are usage errors', () => {
  const c = parseSerialSimArgs([
    '--serial',
    '/dev/ttyUSB0',
    '--protocol',
    'MLR2',
    '--baud',
    '115200',
    '--parity',
    'even',
    '--emulate-baud',
  ])!;
  assert.equal(
    [
      c.path,
      c.baudRate,
      c.options.protocol,
      c.options.emulateBaud,
      c.options.bitsPerChar,
      c.options.ackTimeoutMs,
      c.options.heartbeatMs,
    ],
    ['/dev/ttyUSB0', 115200, 'MLR2', 115200, 11, 4000, 30_000],
  );
  assert.is(parseSerialSimArgs(['--serial', 'x', '--help']), null);
  assert.throws(() => parseSerialSimArgs(['--protocol', 'MLR2']), /a device path is required/);
  assert.throws(
    () => parseSerialSimArgs(['--serial', 'x', '--protocol', 'MLR2', '--account', '12345']),
    /4 hex digits/,
  );
  assert.throws(() => parseSerialSimArgs(['--serial', 'x', '--window', '0']), /--window: must be an integer 1..64/);
});

test.run();
