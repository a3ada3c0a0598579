/** Discovery without udev, over a directory laid out like /dev and /sys/class/tty. */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listSerialPorts } from '../../../hw/serial/index.js';
import { tempDir } from '../../helpers/temp-dir.js';

test('by-id names are attached to their device; globs, absent UARTs and configured paths are handled', async () => {
  const root = tempDir();
  try {
    const dev = join(root.path, 'dev');
    const sys = join(root.path, 'sys');
    mkdirSync(join(dev, 'serial', 'by-id'), { recursive: true });
    for (const name of ['ttyUSB0', 'ttyACM0', 'ttyS0', 'ttyS1', 'ttyAMA0', 'tty0', 'console', 'ttyUSBfoo'])
      writeFileSync(join(dev, name), '');
    for (const [name, type] of [
      ['ttyS0', '4'],
      ['ttyS1', '0'],
    ]) {
      mkdirSync(join(sys, name!), { recursive: true });
      writeFileSync(join(sys, name!, 'type'), `${type}\n`);
    }
    const ftdi = join(dev, 'serial', 'by-id', 'usb-FTDI_FT232R_A1B2-if00-port0');
    symlinkSync('../../ttyUSB0', ftdi);
    const elsewhere = join(root.path, 'ttyLink');
    symlinkSync(join(dev, 'ttyACM0'), elsewhere);
    const configured = new Map([
      [join(dev, 'ttyUSB0'), ['receivers.com_receivers[0]']],
      [elsewhere, ['outputs[1]']],
      ['/nonexistent/ttyX', ['receivers.modem_receivers[0]']],
    ]);
    const ports = await listSerialPorts(configured, { dev, sysTty: sys });
    assert.equal(ports, [
      {
        port_id: ftdi,
        device: join(dev, 'ttyUSB0'),
        by_id: [ftdi],
        source: 'by-id',
        used_by: ['receivers.com_receivers[0]'],
      },
      {
        port_id: join(dev, 'ttyACM0'),
        device: join(dev, 'ttyACM0'),
        by_id: [],
        source: 'device',
        used_by: ['outputs[1]'],
      },
      { port_id: join(dev, 'ttyAMA0'), device: join(dev, 'ttyAMA0'), by_id: [], source: 'device', used_by: [] },
      { port_id: join(dev, 'ttyS0'), device: join(dev, 'ttyS0'), by_id: [], source: 'device', used_by: [] },
      {
        port_id: '/nonexistent/ttyX',
        device: null,
        by_id: [],
        source: 'configured',
        used_by: ['receivers.modem_receivers[0]'],
      },
    ]);
  } finally {
    root.remove();
  }
});

test('a box without /dev/serial and without devices lists nothing', async () => {
  const root = tempDir();
  try {
    assert.equal(await listSerialPorts(new Map(), { dev: root.path, sysTty: root.path }), []);
  } finally {
    root.remove();
  }
});

test.run();
