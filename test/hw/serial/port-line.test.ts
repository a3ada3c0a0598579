/**
 * The serial port layer over real ptys (socat): bytes both ways with counters, unplug and re-plug
 * (socat stopped and started again under the same names), a device missing at start, the reopen
 * backoff and modem-control lines on a pty.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SerialPort } from 'serialport';
import { HealthRegistry } from '../../../src/core/health.js';
import { silentLogger } from '../../../src/core/logger.js';
import type { SerialLineOptions } from '../../../src/core/serial.js';
import { PortLine } from '../../../hw/serial/index.js';
import { PtyPair } from '../../helpers/pty-pair.js';
import { sleep, waitFor } from '../../helpers/net.js';

function options(path: string): SerialLineOptions {
  return { path, baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1, flowControl: 'none', owner: 'test' };
}

function openPeer(path: string): Promise<SerialPort> {
  return new Promise((resolve, reject) => {
    const port = new SerialPort({ path, baudRate: 9600, autoOpen: false });
    port.open((err) => (err ? reject(err) : resolve(port)));
  });
}

const closePeer = (port: SerialPort): Promise<void> =>
  new Promise((resolve) => (port.isOpen ? port.close(() => resolve()) : resolve()));

test('bytes flow both ways and are counted; health is ok with the metrics of the port', async () => {
  const pty = new PtyPair();
  await pty.start();
  const health = new HealthRegistry();
  const line = new PortLine(options(pty.a), { health, logger: silentLogger, metricsIntervalMs: 20 });
  const received: Buffer[] = [];
  line.on('data', (chunk) => received.push(chunk));
  try {
    await line.start();
    assert.ok(line.isOpen);
    const peer = await openPeer(pty.b);
    const fromPeer: Buffer[] = [];
    peer.on('data', (chunk: Buffer) => fromPeer.push(chunk));
    peer.write(Buffer.from('ping\r'));
    assert.ok(line.write(Buffer.from('pong\r')));
    await waitFor(() => Buffer.concat(received).length === 5 && Buffer.concat(fromPeer).length === 5);
    assert.is(Buffer.concat(received).toString(), 'ping\r');
    assert.is(Buffer.concat(fromPeer).toString(), 'pong\r');
    line.countFramingErrors(2);
    await waitFor(() => health.get(line.healthName)?.metrics.framing_errors === 2);
    const entry = health.get(`serial:${pty.a}`)!;
    assert.equal([entry.kind, entry.state], ['serial-port', 'ok']);
    assert.equal(
      { ...entry.metrics },
      { bytes_in: 5, bytes_out: 5, framing_errors: 2, reopens: 0, open: true, baud_rate: 9600, owner: 'test' },
    );
    await closePeer(peer);
  } finally {
    await line.stop();
    await pty.close();
  }
  assert.is(health.get(line.healthName), undefined, 'stop removes the component');
});

test('unplugged: the line reports failed and is reopened by itself once the device is back', async () => {
  const pty = new PtyPair();
  await pty.start();
  const health = new HealthRegistry();
  const line = new PortLine(options(pty.a), {
    health,
    logger: silentLogger,
    backoffMinMs: 100,
    backoffMaxMs: 400,
    metricsIntervalMs: 100,
  });
  const lost: string[] = [];
  let opens = 0;
  line.on('lost', (reason) => lost.push(reason));
  line.on('open', () => opens++);
  try {
    await line.start();
    assert.is(opens, 1);
    await pty.stop();
    await waitFor(() => lost.length === 1);
    assert.match(lost[0]!, /^device (disconnected|disappeared)$/);
    assert.is(line.isOpen, false);
    assert.is(line.write(Buffer.from('x')), false, 'nothing is written while the device is gone');
    await sleep(600);
    const down = health.get(line.healthName)!;
    assert.is(down.state, 'failed');
    assert.match(down.detail ?? '', /cannot open: .*; next attempt in 400 ms/);
    await pty.start();
    await waitFor(() => line.isOpen, 3000);
    assert.equal([opens, line.counters.reopens, health.get(line.healthName)!.state], [2, 1, 'ok']);
    const peer = await openPeer(pty.b);
    const received: Buffer[] = [];
    line.on('data', (chunk) => received.push(chunk));
    peer.write(Buffer.from('back'));
    await waitFor(() => Buffer.concat(received).toString() === 'back');
    await closePeer(peer);
  } finally {
    await line.stop();
    await pty.close();
  }
});

test('a device missing at start is retried with backoff 1 s doubling (never thrown)', async () => {
  const pty = new PtyPair();
  const health = new HealthRegistry();
  const line = new PortLine(options(pty.a), { health, logger: silentLogger });
  try {
    await line.start();
    const first = health.get(line.healthName)!;
    assert.is(first.state, 'failed');
    assert.match(first.detail ?? '', /^cannot open: .*; next attempt in 1 s$/);
    await waitFor(() => /next attempt in 2 s$/.test(health.get(line.healthName)?.detail ?? ''), 2500);
    await pty.start();
    await waitFor(() => line.isOpen, 4000);
    assert.is(line.counters.reopens, 0, 'the first successful open is not a reopen');
  } finally {
    await line.stop();
    await pty.close();
  }
});

test('modem-control lines on a pty: "Inappropriate ioctl" is tolerated', async () => {
  const pty = new PtyPair();
  await pty.start();
  const line = new PortLine(options(pty.a), { health: new HealthRegistry(), logger: silentLogger });
  try {
    await line.start();
    await line.setControl({ dtr: true, rts: true });
    await line.setControl({ dtr: false });
  } finally {
    await line.stop();
    await pty.close();
  }
});

test('reopen() closes the device and opens it again', async () => {
  const pty = new PtyPair();
  await pty.start();
  const line = new PortLine(options(pty.a), { health: new HealthRegistry(), logger: silentLogger, backoffMinMs: 50 });
  let opens = 0;
  line.on('open', () => opens++);
  try {
    await line.start();
    line.reopen('modem silent');
    await waitFor(() => opens === 2, 3000);
    assert.is(line.counters.reopens, 1);
  } finally {
    await line.stop();
    await pty.close();
  }
});

test.run();
