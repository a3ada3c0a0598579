/**
 * The real LED driver (onoff, loaded against a temporary sysfs tree) end to end: export, direction,
 * active_low, values, unexport; a board with no GPIO; a line the kernel refuses.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openStatusLeds } from '../../hw/leds/status-leds.js';
import { FakeSysfs } from '../helpers/fake-sysfs.js';
import { waitFor } from '../helpers/net.js';

const FROM_BOARD = { power: null, link: null, trouble: null };

test('Pi 4: the board map lines 17/27/22 are exported as 529/539/534, outputs, dark; set() writes value; close() unexports', async () => {
  const sysfs = new FakeSysfs()
    .withGpioClass()
    .addChip('pinctrl-bcm2711', 512, 58)
    .setModel('Raspberry Pi 4 Model B Rev 1.4')
    .start();
  try {
    const opened = await openStatusLeds({ sysfsRoot: sysfs.root, lines: FROM_BOARD, activeLow: false });
    assert.ok(opened.lamps, 'opened');
    if (!opened.lamps) return;
    assert.equal(opened.numbers, { power: 529, link: 539, trouble: 534 });
    assert.is(opened.board.id, 'pi4');
    assert.equal(sysfs.exported, [529, 539, 534]);
    for (const n of [529, 539, 534])
      assert.equal(
        [sysfs.line(n, 'direction'), sysfs.line(n, 'value'), sysfs.line(n, 'active_low')],
        ['out', '0', '0'],
      );
    opened.lamps.link.set(true);
    assert.is(sysfs.line(539, 'value'), '1');
    opened.lamps.link.set(false);
    assert.is(sysfs.line(539, 'value'), '0');
    opened.lamps.trouble.set(true);
    opened.lamps.close();
    await waitFor(() => sysfs.unexported.length === 3, 2000);
    assert.equal(sysfs.unexported, [529, 539, 534]);
    assert.is(sysfs.isExported(534), false);
  } finally {
    sysfs.remove();
  }
});

test('Pi 5: pins from the settings on pinctrl-rp1 at base 571, active low', async () => {
  const sysfs = new FakeSysfs()
    .withGpioClass()
    .addChip('gpio-brcmstb@107d508500', 512, 32)
    .addChip('pinctrl-rp1', 571, 54)
    .setModel('Raspberry Pi 5 Model B Rev 1.0')
    .start();
  try {
    const opened = await openStatusLeds({
      sysfsRoot: sysfs.root,
      lines: { power: 5, link: null, trouble: 6 },
      activeLow: true,
    });
    assert.ok(opened.lamps);
    if (!opened.lamps) return;
    assert.equal(opened.numbers, { power: 576, link: 598, trouble: 577 });
    assert.is(sysfs.line(576, 'active_low'), '1');
    opened.lamps.power.set(true);
    assert.is(sysfs.line(576, 'value'), '1', 'logical on (the kernel inverts the line)');
    opened.lamps.close();
  } finally {
    sysfs.remove();
  }
});

test('a line already exported (by a previous run that crashed) is taken over, not exported again', async () => {
  const sysfs = new FakeSysfs().withGpioClass().addChip('pinctrl-bcm2711', 512, 58).start();
  try {
    const first = await openStatusLeds({ sysfsRoot: sysfs.root, lines: FROM_BOARD, activeLow: false });
    assert.ok(first.lamps);
    first.lamps!.power.set(true);
    // No close(): the process died. The next start finds the lines exported and lit.
    const second = await openStatusLeds({ sysfsRoot: sysfs.root, lines: FROM_BOARD, activeLow: false });
    assert.ok(second.lamps);
    assert.equal(sysfs.exported, [529, 539, 534]);
    assert.is(sysfs.line(529, 'value'), '0', 'dark after opening');
    second.lamps!.close();
  } finally {
    sysfs.remove();
  }
});

test('a development PC with no GPIO at all: no LEDs, a reason, no throw', async () => {
  const sysfs = new FakeSysfs();
  try {
    const opened = await openStatusLeds({ sysfsRoot: sysfs.root, lines: FROM_BOARD, activeLow: false });
    assert.is(opened.lamps, null);
    if (opened.lamps === null) assert.match(opened.reason, /no Raspberry Pi GPIO controller under .*class\/gpio/);
  } finally {
    sysfs.remove();
  }
});

test('a line the kernel will not export: a clear error, and the lines already opened are released', async () => {
  // The chip shows 58 lines, but this "kernel" exports only the first 20: line 22 is refused.
  const sysfs = new FakeSysfs().withGpioClass().addChip('pinctrl-bcm2711', 512, 58, 20).start();
  try {
    const outcome = await openStatusLeds({
      sysfsRoot: sysfs.root,
      lines: { power: 1, link: 2, trouble: 22 },
      activeLow: false,
      // Long enough for the fake kernel to make the exported lines writable on a loaded machine;
      // the refused line costs the whole wait.
      exportWaitMs: 3000,
    }).then(
      () => 'opened',
      (err: Error) => err.message,
    );
    assert.is(outcome, 'gpio534 did not become writable within 3000 ms of export');
    assert.equal(sysfs.refused, [534]);
    await waitFor(() => sysfs.unexported.length === 2, 2000);
    assert.equal(sysfs.unexported, [513, 514]);
  } finally {
    sysfs.remove();
  }
});

test('a line the chip does not have never reaches export', async () => {
  const sysfs = new FakeSysfs().withGpioClass().addChip('pinctrl-bcm2711', 512, 20).start();
  try {
    const outcome = await openStatusLeds({
      sysfsRoot: sysfs.root,
      lines: { power: 3, link: 4, trouble: 25 },
      activeLow: false,
    }).then(
      () => 'opened',
      (err: Error) => err.message,
    );
    assert.match(outcome, /GPIO 25 is not a line of pinctrl-bcm2711 \(lines 0-19\)/);
    assert.equal(sysfs.exported, []);
  } finally {
    sysfs.remove();
  }
});

test.run();
