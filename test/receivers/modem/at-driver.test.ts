/** The AT driver against the simulated modem over a real pseudo-terminal pair (socat). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SerialPort } from 'serialport';
import { AtDriver } from '../../../src/receivers/modem/at-driver.js';
import { ModemSimulator, type ModemSimOptions } from '../../../src/sim/modem/modem-sim.js';
import { PtyPair } from '../../helpers/pty-pair.js';
import { waitFor } from '../../helpers/net.js';

interface Rig {
  driver: AtDriver;
  sim: ModemSimulator;
  urcs: string[][];
  close(): Promise<void>;
}

async function open(path: string): Promise<SerialPort> {
  const port = new SerialPort({ path, baudRate: 115200, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  return port;
}

async function rig(options: ModemSimOptions = {}, timeoutMs = 1000): Promise<Rig> {
  const pty = new PtyPair();
  await pty.start();
  const gatewaySide = await open(pty.a);
  const modemSide = await open(pty.b);
  const sim = new ModemSimulator((text) => modemSide.write(text, 'latin1'), options);
  modemSide.on('data', (chunk: Buffer) => sim.feed(chunk));
  const urcs: string[][] = [];
  const driver = new AtDriver({
    write: (text) => gatewaySide.write(text, 'latin1'),
    onUrc: (lines) => urcs.push([...lines]),
    timeoutMs,
  });
  gatewaySide.on('data', (chunk: Buffer) => driver.feed(chunk));
  return {
    driver,
    sim,
    urcs,
    close: async () => {
      sim.stop();
      driver.close('test over');
      await new Promise<void>((r) => gatewaySide.close(() => r()));
      await new Promise<void>((r) => modemSide.close(() => r()));
      await pty.close();
    },
  };
}

test('commands with echo on and off: the echo is never part of the answer', async () => {
  const r = await rig({ echo: true });
  try {
    const a = await r.driver.send('AT+CGMI');
    assert.equal(a.lines, ['VIGIL-SIM']);
    assert.ok(a.final.ok);
    assert.is(r.driver.stats.echoes, 1);
    await r.driver.send('ATE0');
    const b = await r.driver.send('AT+CSQ', { expect: '+CSQ' });
    assert.equal(b.lines, ['+CSQ: 20,99']);
    assert.is(r.driver.stats.echoes, 2);
  } finally {
    await r.close();
  }
});

test('URCs between the lines of an answer, and before it, reach onUrc and not the answer', async () => {
  const r = await rig({ echo: false });
  try {
    r.sim.deliver({ sender: '+37060000000', text: 'x' }); // stored, no +CMTI yet (no AT+CNMI)
    await r.driver.send('AT+CNMI=2,1,0,0,0');
    r.sim.urcInsideNextAnswer = '+CMTI: "SM",7';
    r.sim.urc('^RSSI:14');
    const list = await r.driver.send('AT+CMGL=4', { expect: '+CMGL' });
    assert.is(list.lines.length, 2);
    assert.ok(list.lines[0]!.startsWith('+CMGL: 1,0,,'));
    assert.ok(/^[0-9A-F]+$/.test(list.lines[1]!));
    r.sim.urcInsideNextAnswer = '+CREG: 5';
    const creg = await r.driver.send('AT+CREG?', { expect: '+CREG' });
    assert.equal(creg.lines, ['+CREG: 0,1']);
    r.sim.ring('+37060000000');
    await waitFor(() => r.urcs.length >= 5);
    assert.equal(r.urcs, [
      ['^RSSI:14'],
      ['+CMTI: "SM",7'],
      ['+CREG: 5'],
      ['RING'],
      ['+CLIP: "+37060000000",145,"",,"",0'],
    ]);
  } finally {
    await r.close();
  }
});

test('error result codes resolve with the code; a PIN-locked SIM says so', async () => {
  const r = await rig({ pin: '1234', echo: false });
  try {
    const cpin = await r.driver.send('AT+CPIN?', { expect: '+CPIN' });
    assert.equal(cpin.lines, ['+CPIN: SIM PIN']);
    const read = await r.driver.send('AT+CMGR=1', { expect: '+CMGR' });
    assert.equal(read.final, { ok: false, line: '+CME ERROR: 11', kind: 'cme', code: 11, text: '11' });
    const wrong = await r.driver.send('AT+CPIN="0000"');
    assert.is(wrong.final.ok, false);
    assert.ok(r.sim.simLocked);
    assert.ok((await r.driver.send('AT+CPIN="1234"')).final.ok);
    assert.is((await r.driver.send('AT+CMGR=1', { expect: '+CMGR' })).final.line, '+CMS ERROR: 321');
  } finally {
    await r.close();
  }
});

test('a slow modem within the timeout is answered; a silent one times out and the next command still works', async () => {
  const r = await rig({ echo: false, answerDelayMs: 300 }, 600);
  try {
    const t0 = Date.now();
    assert.ok((await r.driver.send('AT')).final.ok);
    assert.ok(Date.now() - t0 >= 290);
    r.sim.silent = true;
    let failed: unknown = null;
    await r.driver.send('AT').catch((err: unknown) => (failed = err));
    assert.is((failed as { code?: string } | null)?.code, 'DEVICE_TIMEOUT');
    assert.is(r.driver.stats.timeouts, 1);
    r.sim.silent = false;
    r.sim.answerDelayMs = 0;
    assert.ok((await r.driver.send('AT')).final.ok);
  } finally {
    await r.close();
  }
});

test('commands queue one at a time, in order', async () => {
  const r = await rig({ echo: true });
  try {
    const answers = await Promise.all([
      r.driver.send('AT+CGMI'),
      r.driver.send('AT+CGMM'),
      r.driver.send('AT+CGSN', { expect: '+CGSN' }),
    ]);
    assert.equal(
      answers.map((a) => a.lines),
      [['VIGIL-SIM'], ['SIM-MODEM-1'], ['356938035643809']],
    );
    assert.equal(r.sim.received, ['AT+CGMI', 'AT+CGMM', 'AT+CGSN']);
  } finally {
    await r.close();
  }
});

test.run();
