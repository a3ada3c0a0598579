/** gpiochip discovery and sysfs numbering (hw/gpio/gpiochip.ts) over trees laid out like /sys. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { boardForChipLabel, boardForModel } from '../../hw/boards/pin-maps.js';
import { findHeaderChip, listGpioChips, sysfsNumber } from '../../hw/gpio/gpiochip.js';
import { FakeSysfs } from '../helpers/fake-sysfs.js';

function tree(build: (sysfs: FakeSysfs) => void): FakeSysfs {
  const sysfs = new FakeSysfs();
  build(sysfs);
  return sysfs;
}

test('Pi 4 on a 6.x kernel: the header controller is pinctrl-bcm2711 at base 512, not the firmware expander', () => {
  const sysfs = tree((s) =>
    s.withGpioClass().addChip('raspberrypi-exp-gpio', 570, 8).addChip('pinctrl-bcm2711', 512, 58),
  );
  try {
    const chip = findHeaderChip(listGpioChips(sysfs.root));
    assert.equal(chip, { label: 'pinctrl-bcm2711', base: 512, ngpio: 58 });
    assert.is(sysfsNumber(chip!, 17), 529);
  } finally {
    sysfs.remove();
  }
});

test('Pi 5 on a 6.6 kernel: pinctrl-rp1 at base 571 among the brcmstb chips', () => {
  const sysfs = tree((s) =>
    s
      .withGpioClass()
      .addChip('gpio-brcmstb@107d508500', 512, 32)
      .addChip('gpio-brcmstb@107d517c00', 544, 15)
      .addChip('pinctrl-rp1', 571, 54),
  );
  try {
    const chip = findHeaderChip(listGpioChips(sysfs.root))!;
    assert.is(chip.label, 'pinctrl-rp1');
    assert.equal([sysfsNumber(chip, 17), sysfsNumber(chip, 27), sysfsNumber(chip, 22)], [588, 598, 593]);
  } finally {
    sysfs.remove();
  }
});

test('Pi 3 with an old kernel: pinctrl-bcm2835 at base 0', () => {
  const sysfs = tree((s) => s.withGpioClass().addChip('pinctrl-bcm2835', 0, 54));
  try {
    assert.is(sysfsNumber(findHeaderChip(listGpioChips(sysfs.root))!, 22), 22);
  } finally {
    sysfs.remove();
  }
});

test('no GPIO class at all (a development PC), or only foreign chips: no header chip, no throw', () => {
  const none = tree(() => undefined);
  const foreign = tree((s) => s.withGpioClass().addChip('ftdi-cbus', 508, 4));
  try {
    assert.equal(listGpioChips(none.root), []);
    assert.is(findHeaderChip(listGpioChips(none.root)), null);
    assert.is(findHeaderChip(listGpioChips(foreign.root)), null);
  } finally {
    none.remove();
    foreign.remove();
  }
});

test('a line the chip does not have is refused with the chip range', () => {
  assert.throws(
    () => sysfsNumber({ label: 'pinctrl-rp1', base: 571, ngpio: 54 }, 54),
    /GPIO 54 is not a line of pinctrl-rp1 \(lines 0-53\)/,
  );
  assert.throws(() => sysfsNumber({ label: 'pinctrl-rp1', base: 571, ngpio: 54 }, -1), /not a line/);
});

test('board maps: device-tree models and chip labels', () => {
  assert.is(boardForModel('Raspberry Pi 4 Model B Rev 1.4\0')?.id, 'pi4');
  assert.is(boardForModel('Raspberry Pi 5 Model B Rev 1.0')?.id, 'pi5');
  assert.is(boardForModel('Raspberry Pi Compute Module 4 Rev 1.0')?.id, 'cm4');
  assert.is(boardForModel('Raspberry Pi 3 Model B Plus Rev 1.3')?.id, 'pi3');
  assert.is(boardForModel('QEMU Virtual Machine'), null);
  assert.is(boardForChipLabel('pinctrl-rp1')?.id, 'pi5');
  assert.equal(boardForModel('Raspberry Pi 5 Model B')?.leds, { power: 17, link: 27, trouble: 22 });
});

test.run();
