import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSetupFile, type ParseContext } from '../../src/first-boot/setup-file.js';

// A real ed25519 public key (ssh-keygen -t ed25519), so the blob check sees the real layout.
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO1t4ymCdMbDS7oPIgpL08Fo77P9ANShbZKHBaaxDC9n installer@laptop';
const context: ParseContext = {
  zoneExists: (name) => ['Europe/Berlin', 'Etc/UTC', 'UTC'].includes(name),
  gatewayInitialised: false,
};

test('a full static setup file parses into one config', () => {
  const text = [
    '# Vigil setup',
    'instance_name = Warehouse 3',
    'admin_password = correct horse battery',
    'hostname = Vigil-W3',
    'timezone = Europe/Berlin',
    'network = static',
    'address = 192.168.1.50/24',
    'gateway = 192.168.1.1',
    'dns = 192.168.1.1, 9.9.9.9',
    'wifi_ssid = "Warehouse WLAN "',
    'wifi_passphrase = a long wifi passphrase',
    'wifi_country = DE',
    'ntp = ntp1.example.net ntp2.example.net',
    `ssh_authorized_key = ${KEY}`,
    '',
  ].join('\r\n');
  const result = parseSetupFile(text, context);
  assert.ok(result.ok);
  if (!result.ok) return;
  assert.equal(result.config, {
    instanceName: 'Warehouse 3',
    adminPassword: 'correct horse battery',
    hostname: 'vigil-w3',
    timezone: 'Europe/Berlin',
    network: { mode: 'static', address: '192.168.1.50/24', gateway: '192.168.1.1', dns: ['192.168.1.1', '9.9.9.9'] },
    wifi: { ssid: 'Warehouse WLAN ', passphrase: 'a long wifi passphrase', country: 'DE' },
    ntp: ['ntp1.example.net', 'ntp2.example.net'],
    sshAuthorizedKeys: [KEY],
    restorePassphrase: null,
  });
  assert.equal(result.keys.length, 13);
});

test('an empty file keeps every default: DHCP, no Wi-Fi, no SSH', () => {
  const result = parseSetupFile('# nothing\n\n', context);
  assert.ok(result.ok);
  if (!result.ok) return;
  assert.equal(result.config.network, { mode: 'dhcp', dns: [] });
  assert.is(result.config.wifi, null);
  assert.equal(result.config.sshAuthorizedKeys, []);
  assert.is(result.config.adminPassword, null);
  assert.is(result.config.hostname, null);
});

test('every wrong line is reported with its line number, in line order', () => {
  const text = [
    'hostname = bad_name', // 1
    'colour = blue', // 2
    'just words', // 3
    'timezone = Mars/Olympus', // 4
    'network = static', // 5
    'address = 10.0.0.5', // 6
    'gateway = 10.0.0.1', // 7
    'hostname = again', // 8
    'ntp =', // 9
    `ssh_authorized_key = ${KEY.slice(0, 60)}`, // 10 (cut short)
    'wifi_passphrase = short', // 11
  ].join('\n');
  const result = parseSetupFile(text, context);
  assert.not.ok(result.ok);
  if (result.ok) return;
  assert.equal(
    result.errors.map((e) => e.line),
    [1, 2, 3, 4, 6, 8, 9, 10, 11, 11],
  );
  const byLine = (line: number): string[] => result.errors.filter((e) => e.line === line).map((e) => e.message);
  assert.match(byLine(1)[0]!, /^hostname: must be letters, digits and inner hyphens.* \(got 'bad_name'\)$/);
  assert.match(byLine(2)[0]!, /^unknown key 'colour'/);
  assert.is(byLine(3)[0], 'expected "key = value"');
  assert.match(byLine(4)[0]!, /^timezone: is not a known time zone/);
  assert.match(byLine(6)[0]!, /^address: must be an IPv4 address with a prefix length/);
  assert.is(byLine(8)[0], 'hostname: given twice (first on line 1)');
  assert.match(byLine(9)[0]!, /^ntp: is empty/);
  assert.match(byLine(10)[0]!, /^ssh_authorized_key: the key is damaged/);
  assert.equal(byLine(11).sort(), [
    'wifi_passphrase: must be 8..63 printable ASCII characters (or 64 hex digits)',
    'wifi_passphrase: needs wifi_ssid',
  ]);
});

test('secret values never appear in error messages', () => {
  const result = parseSetupFile('admin_password = short1\nwifi_ssid = x\nwifi_passphrase = tiny\u00e9', context);
  assert.not.ok(result.ok);
  if (result.ok) return;
  const text = JSON.stringify(result.errors);
  assert.not.ok(text.includes('short1'));
  assert.not.ok(text.includes('tiny'));
  assert.match(text, /admin_password: must be 10..128 characters/);
});

test('static needs address and gateway, the gateway inside the subnet; dhcp refuses them', () => {
  const missing = parseSetupFile('network = static\naddress = 10.1.2.3/16', context);
  assert.equal(missing.ok ? [] : missing.errors, [
    { line: 1, message: 'network: static needs both address and gateway' },
  ]);
  const outside = parseSetupFile('network = static\naddress = 10.1.2.3/16\ngateway = 10.2.0.1', context);
  assert.equal(outside.ok ? [] : outside.errors, [{ line: 3, message: 'gateway: is not inside 10.1.2.3/16' }]);
  const dhcp = parseSetupFile('network = dhcp\ngateway = 10.2.0.1', context);
  assert.equal(dhcp.ok ? [] : dhcp.errors, [{ line: 2, message: "gateway: only applies with 'network = static'" }]);
  const mode = parseSetupFile('network = auto', context);
  assert.equal(mode.ok ? [] : mode.errors, [{ line: 1, message: "network: must be 'dhcp' or 'static' (got 'auto')" }]);
});

test('instance_name and admin_password are refused once the gateway on the card is initialised', () => {
  const result = parseSetupFile('instance_name = New name\nadmin_password = long enough password\nhostname = ok', {
    ...context,
    gatewayInitialised: true,
  });
  assert.not.ok(result.ok);
  if (result.ok) return;
  assert.equal(
    result.errors.map((e) => e.line),
    [1, 2],
  );
  assert.match(result.errors[1]!.message, /already initialised; change it through the API/);
});

test('several ssh_authorized_key lines are all kept; a byte-order mark and CRLF are tolerated', () => {
  const result = parseSetupFile(
    `\uFEFFssh_authorized_key = ${KEY}\r\nSSH_AUTHORIZED_KEY = ${KEY.replace('installer', 'second')}\r\n`,
    context,
  );
  assert.ok(result.ok);
  if (!result.ok) return;
  assert.is(result.config.sshAuthorizedKeys.length, 2);
});

test.run();
