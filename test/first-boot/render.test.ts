import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { renderNtp, renderWiredNetwork, renderWpaSupplicant, wpaPsk } from '../../src/first-boot/render.js';

test('the PSK is derived as IEEE 802.11i-2004 H.4 says (its test vector)', () => {
  assert.is(wpaPsk('IEEE', 'password'), 'f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e');
  assert.is(
    wpaPsk('ThisIsASSID', 'ThisIsAPassword'),
    '0dc0d6eb90555ed6419756b9a15ec3e3209b63df707dd508d14581f8982721af',
  );
  assert.is(wpaPsk('any', 'AB'.repeat(32)), 'ab'.repeat(32));
});

test('wpa_supplicant gets the SSID in hex and only the PSK', () => {
  assert.is(
    renderWpaSupplicant({ ssid: 'Café "1"', passphrase: 'password', country: 'DE' }).split('\n').slice(1).join('\n'),
    `ctrl_interface=DIR=/run/wpa_supplicant\nupdate_config=0\ncountry=DE\nnetwork={\n\tssid=${Buffer.from('Café "1"').toString('hex')}\n\tpsk=${wpaPsk('Café "1"', 'password')}\n}\n`,
  );
});

test('the image ships the DHCP default exactly as first boot renders it', () => {
  const shipped = readFileSync(
    new URL('../../../image/overlay/etc/systemd/network/20-vigil-wired.network', import.meta.url),
    'utf8',
  );
  assert.is(shipped, renderWiredNetwork({ mode: 'dhcp', dns: [] }));
  assert.match(renderWiredNetwork({ mode: 'dhcp', dns: ['9.9.9.9'] }), /\nDHCP=yes\nDNS=9\.9\.9\.9\n$/);
  assert.match(renderNtp(['a', 'b']), /\n\[Time\]\nNTP=a b\n$/);
});

test.run();
