/** The hw.leds settings section (docs/settings.md §hw): defaults, field rules, partial updates, pins distinct. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultSettings } from '../../src/settings/schema.js';
import { accepted, errorsOf } from './support.js';

test('defaults: LEDs on, every pin from the board map, active high', () => {
  assert.equal(defaultSettings().hw, {
    leds: { enabled: true, power_pin: null, link_pin: null, trouble_pin: null, active_low: false },
  });
});

test('a partial update of hw.leds keeps the fields it does not name', async () => {
  const first = await accepted({ hw: { leds: { power_pin: 5, active_low: true } } });
  assert.equal(first.hw.leds, { enabled: true, power_pin: 5, link_pin: null, trouble_pin: null, active_low: true });
  const second = await accepted({ hw: { leds: { enabled: false } } }, first);
  assert.equal(second.hw.leds, { enabled: false, power_pin: 5, link_pin: null, trouble_pin: null, active_low: true });
  const back = await accepted({ hw: { leds: { power_pin: null } } }, second);
  assert.is(back.hw.leds.power_pin, null, 'null returns a pin to the board default');
});

test('pins are header GPIO lines 0-27 or null; flags are booleans; unknown keys are refused', async () => {
  assert.equal(await errorsOf({ hw: { leds: { power_pin: 28, link_pin: -1, trouble_pin: 2.5 } } }), [
    'hw.leds.link_pin: must be a header GPIO line between 0 and 27, or null for the board default',
    'hw.leds.power_pin: must be a header GPIO line between 0 and 27, or null for the board default',
    'hw.leds.trouble_pin: must be an integer',
  ]);
  assert.equal(await errorsOf({ hw: { leds: { enabled: 'yes' } } }), ['hw.leds.enabled: must be true or false']);
  assert.equal((await errorsOf({ hw: { leds: { colour: 'red' } } })).length, 1);
  assert.equal((await errorsOf({ hw: { fan: {} } })).length, 1);
});

test('two LEDs on one pin are refused', async () => {
  assert.equal(await errorsOf({ hw: { leds: { power_pin: 4, link_pin: 4, trouble_pin: 4 } } }), [
    'hw.leds.link_pin: must differ from the other LED pins',
    'hw.leds.trouble_pin: must differ from the other LED pins',
  ]);
});

test.run();
