/**
 * The installer's `vigil-setup.txt` (docs/first-boot.md): `key = value` lines, `#` comments, parsed and
 * validated as a whole. Pure: text in, a config or line-by-line errors out. Error messages never repeat
 * the value of a secret key (admin_password, wifi_passphrase): the result file stays on the FAT partition.
 */
import { isIP } from 'node:net';
import { MIN_PASSPHRASE_LENGTH } from '../backup/backup-format.js';
import { checkAuthorizedKey, checkHostname, checkIpv4Cidr, checkPassphrase, splitList } from './setup-fields.js';

export const SETUP_FILE = 'vigil-setup.txt';
export const RESULT_FILE = 'vigil-setup.result.txt';
export const MAX_SETUP_BYTES = 64 * 1024;
export const MIN_ADMIN_PASSWORD = 10;
/** src/backup/backup-format.ts MIN_PASSPHRASE_LENGTH: every backup's passphrase is at least this long. */
const MIN_BACKUP_PASSPHRASE = MIN_PASSPHRASE_LENGTH;

export const SETUP_KEYS = [
  'instance_name',
  'admin_password',
  'hostname',
  'timezone',
  'network',
  'address',
  'gateway',
  'dns',
  'wifi_ssid',
  'wifi_passphrase',
  'wifi_country',
  'ntp',
  'ssh_authorized_key',
  'restore_passphrase',
] as const;
export type SetupKey = (typeof SETUP_KEYS)[number];
const SECRET_KEYS: ReadonlySet<string> = new Set(['admin_password', 'wifi_passphrase', 'restore_passphrase']);
/** The only key that may repeat: one authorized key per line. */
const REPEATABLE: ReadonlySet<string> = new Set(['ssh_authorized_key']);

export interface SetupLineError {
  readonly line: number;
  readonly message: string;
}

export type WiredNetwork =
  | { readonly mode: 'dhcp'; readonly dns: readonly string[] }
  | { readonly mode: 'static'; readonly address: string; readonly gateway: string; readonly dns: readonly string[] };

export interface SetupConfig {
  readonly instanceName: string | null;
  readonly adminPassword: string | null;
  readonly hostname: string | null;
  readonly timezone: string | null;
  readonly network: WiredNetwork;
  readonly wifi: { readonly ssid: string; readonly passphrase: string | null; readonly country: string | null } | null;
  readonly ntp: readonly string[];
  readonly sshAuthorizedKeys: readonly string[];
  /** The passphrase of the backup file beside the setup file (docs/first-boot.md "Restoring a backup"). */
  readonly restorePassphrase: string | null;
}

export interface ParseContext {
  /** Whether `/usr/share/zoneinfo/<name>` exists on the target root. */
  zoneExists(name: string): boolean;
  /** The gateway's data dir already holds a database: instance_name and admin_password cannot apply. */
  readonly gatewayInitialised: boolean;
}

export type ParseResult =
  | { readonly ok: true; readonly config: SetupConfig; readonly keys: readonly SetupKey[] }
  | { readonly ok: false; readonly errors: readonly SetupLineError[] };

interface Entry {
  readonly value: string;
  readonly line: number;
}

export function parseSetupFile(text: string, context: ParseContext): ParseResult {
  const errors: SetupLineError[] = [];
  const entries = new Map<SetupKey, Entry[]>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) return;
    const eq = trimmed.indexOf('=');
    if (eq <= 0) {
      errors.push({ line, message: 'expected "key = value"' });
      return;
    }
    const key = trimmed.slice(0, eq).trim().toLowerCase();
    if (!(SETUP_KEYS as readonly string[]).includes(key)) {
      errors.push({ line, message: `unknown key '${key.slice(0, 40)}' (known keys: ${SETUP_KEYS.join(', ')})` });
      return;
    }
    const known = key as SetupKey;
    const previous = entries.get(known);
    if (previous && !REPEATABLE.has(known)) {
      errors.push({ line, message: `${known}: given twice (first on line ${previous[0]!.line})` });
      return;
    }
    entries.set(known, [...(previous ?? []), { value: unquote(trimmed.slice(eq + 1).trim()), line }]);
  });

  const one = (key: SetupKey): Entry | null => entries.get(key)?.[0] ?? null;
  const fail = (entry: Entry, key: SetupKey, problem: string): null => {
    errors.push({ line: entry.line, message: `${key}: ${problem}` });
    return null;
  };
  const check = (key: SetupKey, validate: (value: string) => string | null): string | null => {
    const entry = one(key);
    if (!entry) return null;
    if (entry.value === '') return fail(entry, key, 'is empty (remove the line to keep the default)');
    const problem = validate(entry.value);
    return problem === null
      ? entry.value
      : fail(entry, key, SECRET_KEYS.has(key) ? problem : `${problem} (got '${entry.value.slice(0, 80)}')`);
  };

  const freshOnly = (value: string): string | null =>
    context.gatewayInitialised
      ? 'the gateway on this card is already initialised; change it through the API'
      : value.length > 0
        ? null
        : 'is empty';
  const instanceName = check('instance_name', (v) =>
    /[\u0000-\u001f\u007f]/.test(v) || v.length > 64 ? 'must be 1..64 printable characters' : freshOnly(v),
  );
  const adminPassword = check('admin_password', (v) =>
    v.length < MIN_ADMIN_PASSWORD || v.length > 128 ? `must be ${MIN_ADMIN_PASSWORD}..128 characters` : freshOnly(v),
  );
  const hostname = check('hostname', checkHostname);
  const timezone = check('timezone', (v) =>
    /^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+)*$/.test(v) && context.zoneExists(v)
      ? null
      : 'is not a known time zone (e.g. Europe/Berlin, UTC)',
  );
  const network = readNetwork(one, check, fail);
  const wifi = readWifi(one, check, fail);
  const ntp = check('ntp', (v) => {
    const servers = splitList(v);
    if (servers.length === 0 || servers.length > 8) return 'must list 1..8 servers';
    return servers.every((s) => isIP(s) !== 0 || checkHostname(s, true) === null)
      ? null
      : 'must be host names or IP addresses';
  });
  const sshKeys = (entries.get('ssh_authorized_key') ?? []).flatMap((entry) => {
    const problem = entry.value === '' ? 'is empty' : checkAuthorizedKey(entry.value);
    if (problem !== null) return fail(entry, 'ssh_authorized_key', problem) ?? [];
    return [entry.value];
  });

  const restorePassphrase = check('restore_passphrase', (v) =>
    v.length < MIN_BACKUP_PASSPHRASE
      ? `must be at least ${MIN_BACKUP_PASSPHRASE} characters, as every backup's is`
      : null,
  );
  // A restored box keeps the backup's accounts and name: a first password or name would contradict them.
  if (one('restore_passphrase')) {
    for (const key of ['admin_password', 'instance_name'] as const) {
      const entry = one(key);
      if (entry) fail(entry, key, 'does not apply with restore_passphrase: the backup brings its own');
    }
  }

  if (errors.length > 0) return { ok: false, errors: errors.sort((a, b) => a.line - b.line) };
  return {
    ok: true,
    keys: SETUP_KEYS.filter((k) => entries.has(k)),
    config: {
      instanceName,
      adminPassword,
      hostname: hostname?.toLowerCase() ?? null,
      timezone,
      network: network!,
      wifi,
      ntp: ntp === null ? [] : splitList(ntp),
      sshAuthorizedKeys: sshKeys,
      restorePassphrase,
    },
  };
}

type One = (key: SetupKey) => Entry | null;
type Check = (key: SetupKey, validate: (value: string) => string | null) => string | null;
type Fail = (entry: Entry, key: SetupKey, problem: string) => null;

function readNetwork(one: One, check: Check, fail: Fail): WiredNetwork | null {
  const mode = check('network', (v) => (v === 'dhcp' || v === 'static' ? null : "must be 'dhcp' or 'static'"));
  const address = check('address', checkIpv4Cidr);
  const gateway = check('gateway', (v) => (isIP(v) === 4 ? null : 'must be an IPv4 address'));
  const dnsText = check('dns', (v) => {
    const servers = splitList(v);
    return servers.length >= 1 && servers.length <= 3 && servers.every((s) => isIP(s) !== 0)
      ? null
      : 'must list 1..3 IP addresses';
  });
  const dns = dnsText === null ? [] : splitList(dnsText);
  const modeEntry = one('network');
  if (mode === 'static') {
    if (!one('address') || !one('gateway')) return fail(modeEntry!, 'network', 'static needs both address and gateway');
    if (address && gateway && !sameSubnet(address, gateway))
      return fail(one('gateway')!, 'gateway', `is not inside ${address}`);
    if (!address || !gateway) return null;
    return { mode: 'static', address, gateway, dns };
  }
  for (const key of ['address', 'gateway'] as const) {
    const entry = one(key);
    if (entry) return fail(entry, key, "only applies with 'network = static'");
  }
  return { mode: 'dhcp', dns };
}

function readWifi(one: One, check: Check, fail: Fail): SetupConfig['wifi'] {
  const ssid = check('wifi_ssid', (v) => (Buffer.byteLength(v) <= 32 ? null : 'must be at most 32 bytes'));
  const passphrase = check('wifi_passphrase', checkPassphrase);
  const country = check('wifi_country', (v) =>
    /^[A-Z]{2}$/.test(v) ? null : 'must be a two-letter country code such as DE',
  );
  if (ssid === null) {
    for (const key of ['wifi_passphrase', 'wifi_country'] as const) {
      const entry = one(key);
      if (entry && !one('wifi_ssid')) fail(entry, key, 'needs wifi_ssid');
    }
    return null;
  }
  return { ssid, passphrase, country };
}

function sameSubnet(cidr: string, gateway: string): boolean {
  const [address, prefixText] = cidr.split('/') as [string, string];
  const prefix = Number(prefixText);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return (toNumber(address) & mask) >>> 0 === (toNumber(gateway) & mask) >>> 0;
}

function toNumber(ipv4: string): number {
  return ipv4.split('.').reduce((n, octet) => (n * 256 + Number(octet)) >>> 0, 0);
}

/** `"My Wi-Fi "` keeps its spaces: one pair of surrounding double quotes is removed. */
function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}
