/**
 * The gateway wires the status LEDs (src/main.ts -> src/gateway/hardware.ts -> hw/ GPIO driver over a temporary sysfs tree)
 * and the self-check: lamp test at start, then the patterns the health registry asks for; a
 * machine without GPIO runs on with one info line.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../src/core/logger.js';
import { Gateway } from '../../src/main.js';
import { FakeSysfs } from '../helpers/fake-sysfs.js';
import { freePort, sleep, waitFor } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';

async function gateway(sysfsRoot: string, logs: string[]) {
  const dir = tempDir();
  const g = new Gateway({
    dataDir: dir.path,
    httpPort: await freePort(),
    httpsPort: 0,
    host: '127.0.0.1',
    sysfsRoot,
    logger: createLogger('vigil', (l) => logs.push(l), 'info'),
  });
  return { g, dir };
}

test('Raspberry Pi 4: lamp test, then power heartbeat, link dark (no receivers), trouble dark; released at stop', async () => {
  const sysfs = new FakeSysfs()
    .withGpioClass()
    .addChip('raspberrypi-exp-gpio', 570, 8)
    .addChip('pinctrl-bcm2711', 512, 58)
    .setModel('Raspberry Pi 4 Model B Rev 1.4')
    .start();
  const logs: string[] = [];
  const { g, dir } = await gateway(sysfs.root, logs);
  try {
    // Watched while start() runs: the lamp test lasts 1 s from the LEDs' start, and the services
    // after them may take longer than that on a loaded machine.
    const values = () => [529, 539, 534].map((n) => sysfs.line(n, 'value') ?? '-').join('');
    const seen: string[] = [];
    const watch = setInterval(() => {
      const now = values();
      if (seen.at(-1) !== now) seen.push(now);
    }, 5);
    try {
      await g.start();
      await waitFor(() => seen.includes('100'), 3000, 20);
    } finally {
      clearInterval(watch);
    }
    assert.equal(sysfs.exported, [529, 539, 534]);
    assert.ok(
      seen.indexOf('111') >= 0 && seen.indexOf('111') < seen.indexOf('100'),
      `lamp test before the heartbeat: ${seen.join(' ')}`,
    );
    assert.ok(
      logs.some(
        (l) =>
          l.includes('status LEDs on') && l.includes('Raspberry Pi 4, pinctrl-bcm2711 base 512: power GPIO 17 (529)'),
      ),
    );
    await waitFor(() => values() === '100', 3000, 20);
    await waitFor(() => values() === '000', 1500, 20); // the heartbeat's dark second
    await waitFor(() => values() === '100', 1500, 20);
    assert.is(g.health.get('self-check')?.state, 'ok');
    assert.equal(g.health.get('leds')?.state, 'ok');
  } finally {
    await g.stop();
    await waitFor(() => sysfs.unexported.length === 3, 2000).catch(() => undefined);
    assert.equal(sysfs.unexported.sort(), [529, 534, 539]);
    sysfs.remove();
    dir.remove();
  }
});

test('a development machine without GPIO: one info line, no LEDs, the gateway runs', async () => {
  const sysfs = new FakeSysfs();
  const logs: string[] = [];
  const { g, dir } = await gateway(sysfs.root, logs);
  try {
    await g.start();
    await sleep(50);
    const ledLines = logs.filter((l) => / leds? /.test(l) || l.includes('LED'));
    assert.equal(ledLines.length, 1, ledLines.join('\n'));
    assert.match(ledLines[0]!, /INFO vigil:leds status LEDs off .*no Raspberry Pi GPIO controller/);
    const res = await fetch(`http://127.0.0.1:${g.apiPorts().http}/health`);
    assert.is(res.status, 200);
  } finally {
    await g.stop();
    sysfs.remove();
    dir.remove();
  }
});

test.run();
