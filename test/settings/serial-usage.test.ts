import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultSettings, type Settings } from '../../src/settings/schema.js';
import { configuredSerialPorts } from '../../src/settings/serial-usage.js';

test('COM and modem receivers by port_id and serial outputs by identificator, in settings order', () => {
  const base = defaultSettings();
  const settings = {
    ...base,
    receivers: {
      ...base.receivers,
      com_receivers: [{ id: 3, name: 'c', port_id: '/dev/ttyUSB0', baud_rate: 9600 }],
      modem_receivers: [{ id: 4, name: 'm', port_id: '/dev/ttyACM0', baud_rate: 9600 }],
    },
    outputs: [
      { id: 1, type: 1, identificator: '127.0.0.1:1000' },
      { id: 2, type: 3, identificator: '/dev/ttyUSB0' },
    ],
  } as unknown as Settings;
  assert.equal(
    [...configuredSerialPorts(settings)],
    [
      ['/dev/ttyUSB0', ['receivers.com_receivers[0]', 'outputs[1]']],
      ['/dev/ttyACM0', ['receivers.modem_receivers[0]']],
    ],
  );
});

test.run();
