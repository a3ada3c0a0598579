/** `vigil sim-modem` as a child process on a real pty: AT answers, stdin commands, +CMTI and stored PDUs. */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SerialPort } from 'serialport';
import { AtDriver } from '../../../src/receivers/modem/at-driver.js';
import { decodeDeliverPdu } from '../../../src/protocols/sms/pdu.js';
import { parseSimModemArgs } from '../../../src/sim/modem/sim-modem-cli.js';
import { CLI } from '../../helpers/gateway-process.js';
import { waitFor } from '../../helpers/net.js';
import { PtyPair } from '../../helpers/pty-pair.js';

test('arguments: defaults, flags, errors', () => {
  assert.equal(parseSimModemArgs(['--pty', '/tmp/x']), { pty: '/tmp/x', baud: 9600, options: {} });
  assert.equal(
    parseSimModemArgs([
      '--pty',
      '/tmp/x',
      '--pin',
      '1234',
      '--index-base',
      '0',
      '--no-echo',
      '--csq',
      '7',
      '--delay-ms',
      '50',
    ]),
    {
      pty: '/tmp/x',
      baud: 9600,
      options: { pin: '1234', indexBase: 0, echo: false, csq: 7, answerDelayMs: 50 },
    },
  );
  assert.is(parseSimModemArgs(['--help']), null);
  assert.throws(() => parseSimModemArgs([]), /--pty is required/);
  assert.throws(() => parseSimModemArgs(['--pty', 'x', '--pin', '12']), /4 to 8 digits/);
  assert.throws(() => parseSimModemArgs(['--pty', 'x', '--index-base', '2']), /--index-base must be an integer 0..1/);
});

test('the child answers AT, announces an SMS given on stdin, serves its PDUs and rings', async () => {
  const pty = new PtyPair();
  await pty.start();
  const child = spawn(process.execPath, [CLI, 'sim-modem', '--pty', pty.b, '--index-base', '0'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const replies: unknown[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => replies.push(JSON.parse(line)));
  const port = new SerialPort({ path: pty.a, baudRate: 9600, autoOpen: false });
  try {
    await waitFor(() => replies.length > 0, 10_000);
    assert.equal(replies[0], { ready: pty.b });
    await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
    const urcs: string[] = [];
    const driver = new AtDriver({
      write: (t) => port.write(t, 'latin1'),
      onUrc: (l) => urcs.push(l[0]!),
      timeoutMs: 2000,
    });
    port.on('data', (chunk: Buffer) => driver.feed(chunk));
    assert.ok((await driver.send('ATE0')).final.ok);
    assert.ok((await driver.send('AT+CNMI=2,1,0,0,0')).final.ok);
    child.stdin!.write(`sms +37060000000 ${'long text '.repeat(20)}\n`);
    child.stdin!.write('ring +37060000000\n');
    await waitFor(() => urcs.length === 4);
    assert.equal(urcs, ['+CMTI: "SM",0', '+CMTI: "SM",1', 'RING', '+CLIP: "+37060000000",145,"",,"",0']);
    assert.equal(replies.slice(1), [{ delivered: [0, 1] }, { rang: '+37060000000' }]);
    const texts: string[] = [];
    for (const index of [1, 0]) {
      const answer = await driver.send(`AT+CMGR=${index}`, { expect: '+CMGR' });
      const r = decodeDeliverPdu(answer.lines[1]!);
      assert.ok(r.ok);
      if (r.ok) texts[r.sms.concat!.seq - 1] = r.sms.text;
    }
    assert.is(texts.join(''), `${'long text '.repeat(20)}`.trim());
    assert.ok((await driver.send('AT+CMGD=0')).final.ok);
    const list = await driver.send('AT+CMGL=4', { expect: '+CMGL' });
    assert.is(list.lines.length, 2);
    driver.close('done');
  } finally {
    child.kill('SIGTERM');
    if (port.isOpen) await new Promise<void>((r) => port.close(() => r()));
    await pty.close();
  }
});

test.run();
