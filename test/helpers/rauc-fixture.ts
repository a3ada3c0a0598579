/**
 * Real RAUC bundles for tests (docs/updates.md "Tests"): a development CA and signer made with openssl
 * (CA:TRUE / CA:FALSE, keyUsage=digitalSignature, no extendedKeyUsage: platform notes), an ext4 root
 * image, `rauc bundle`, and the damaged variants the installer must refuse. `rauc install` needs
 * rauc-service, D-Bus, loop devices and dm-verity, which this container lacks: installs go to a fake
 * `rauc` that answers `install`, `status` and `mark-good` like RAUC's CLI (its JSON shape taken from
 * RAUC 1.8) and hands `info` to the real tool, so every signature and manifest check stays real.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tool } from './system-tools.js';

const EXTENSIONS = `[ca]
basicConstraints=critical,CA:TRUE
keyUsage=critical,keyCertSign,cRLSign
subjectKeyIdentifier=hash
[signer]
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
`;

export interface Keys {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
  readonly otherCert: string;
  readonly otherKey: string;
}

function openssl(args: string[]): void {
  execFileSync(tool('openssl'), args, { stdio: 'ignore' });
}

function signer(dir: string, name: string, cnf: string): { ca: string; cert: string; key: string } {
  const ca = join(dir, `${name}-ca.pem`);
  const caKey = join(dir, `${name}-ca.key`);
  const key = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  const cert = join(dir, `${name}.pem`);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    caKey,
    '-out',
    ca,
    '-subj',
    `/CN=${name} CA`,
    '-days',
    '30',
    '-extensions',
    'ca',
    '-config',
    cnf,
  ]);
  openssl(['req', ...ec, '-keyout', key, '-out', csr, '-subj', `/CN=${name} signer`]);
  openssl([
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    ca,
    '-CAkey',
    caKey,
    '-CAcreateserial',
    '-out',
    cert,
    '-days',
    '30',
    '-extfile',
    cnf,
    '-extensions',
    'signer',
  ]);
  return { ca, cert, key };
}

export function makeKeys(dir: string): Keys {
  mkdirSync(dir, { recursive: true });
  const cnf = join(dir, 'ext.cnf');
  writeFileSync(cnf, EXTENSIONS);
  const dev = signer(dir, 'dev', cnf);
  const other = signer(dir, 'other', cnf);
  return { ca: dev.ca, cert: dev.cert, key: dev.key, otherCert: other.cert, otherKey: other.key };
}

let serial = 0;

/** A signed verity bundle with an ext4 `rootfs.img` of `payloadBytes` random bytes (over 4 KiB). */
export function makeBundle(
  dir: string,
  keys: Keys,
  options: { version: string; compatible?: string; other?: boolean; payloadBytes?: number },
): string {
  const work = join(dir, `bundle-${++serial}`);
  const root = join(work, 'root');
  const content = join(work, 'content');
  mkdirSync(root, { recursive: true });
  mkdirSync(content);
  // Random bytes: squashfs compresses anything else below RAUC's 4 KiB floor.
  writeFileSync(join(root, 'data'), randomBytes(options.payloadBytes ?? 20_000));
  execFileSync(tool('mkfs.ext4'), ['-q', '-d', root, join(content, 'rootfs.img'), '1M'], { stdio: 'ignore' });
  writeFileSync(
    join(content, 'manifest.raucm'),
    `[update]\ncompatible=${options.compatible ?? 'vigil-rpi-arm64'}\nversion=${options.version}\n\n[bundle]\nformat=verity\n\n[image.rootfs]\nfilename=rootfs.img\n`,
  );
  const out = join(dir, `v${options.version}-${serial}.raucb`);
  const [cert, key] = options.other ? [keys.otherCert, keys.otherKey] : [keys.cert, keys.key];
  execFileSync(tool('rauc'), ['bundle', '--cert', cert, '--key', key, content, out], { stdio: 'ignore' });
  return out;
}

/** The first `keep` bytes only: a transfer cut short. */
export function truncated(file: string, keep: number): string {
  const out = `${file}.cut`;
  writeFileSync(out, readFileSync(file).subarray(0, keep));
  return out;
}

/** One payload byte flipped: the signature still verifies, the payload does not. */
export function corrupted(file: string, at = 5000): string {
  const out = `${file}.bad`;
  const bytes = readFileSync(file);
  bytes[at] = bytes[at]! ^ 0xff;
  writeFileSync(out, bytes);
  return out;
}

/** The payload and hash tree with no signature (a zero signature size). */
export function unsigned(file: string): string {
  const bytes = readFileSync(file);
  const sigSize = Number(bytes.readBigUInt64BE(bytes.length - 8));
  const out = `${file}.unsigned`;
  writeFileSync(out, Buffer.concat([bytes.subarray(0, bytes.length - 8 - sigSize), Buffer.alloc(8)]));
  return out;
}

export interface FakeBox {
  readonly rauc: string;
  readonly cmdline: string;
  readonly bootEnv: string;
  readonly log: string;
  /** Makes the next `rauc install` fail (as when the slot is too small). */
  failInstall(words: string): void;
  calls(): string[];
  boot(slot: 'A' | 'B', env: string): void;
}

const FAKE = `#!/usr/bin/env node
// A fake rauc for tests (test/helpers/rauc-fixture.ts): info is the real tool's.
const fs = require('fs');
const { spawnSync, execFileSync } = require('child_process');
const dir = __dirname;
const args = process.argv.slice(2);
const plain = args.filter((a) => !a.startsWith('--'));
const log = (line) => fs.appendFileSync(dir + '/calls.log', line + '\\n');
const booted = (/rauc\\.slot=([AB])/.exec(fs.readFileSync(dir + '/cmdline', 'utf8')) || [])[1];
const readEnv = () => Object.fromEntries(fs.readFileSync(dir + '/boot.env', 'utf8').split('\\n').filter((l) => l.includes('=')).map((l) => l.split('=')));
const writeEnv = (env) => fs.writeFileSync(dir + '/boot.env', Object.entries(env).map(([k, v]) => k + '=' + v).join('\\n') + '\\nEND=1\\n');
const status = () => JSON.parse(fs.readFileSync(dir + '/status.json', 'utf8'));
if (plain[0] === 'info') {
  const r = spawnSync(${JSON.stringify(tool('rauc'))}, args, { stdio: 'inherit' });
  process.exit(r.status === null ? 1 : r.status);
} else if (plain[0] === 'install') {
  const source = plain[1];
  log('install ' + source);
  const flag = (name) => (args.find((a) => a.startsWith('--' + name + '=')) || '').slice(name.length + 3);
  const install = (file) => {
    if (fs.existsSync(dir + '/install-fail')) { process.stderr.write(fs.readFileSync(dir + '/install-fail', 'utf8')); process.exit(1); }
    // As RAUC: the signature against the keyring (when the test names one), before anything is written.
    const keyring = flag('keyring');
    const check = spawnSync(${JSON.stringify(tool('rauc'))}, ['info', ...(keyring ? ['--keyring=' + keyring] : ['--no-verify']), '--output-format=json', file], { encoding: 'utf8' });
    if (check.status !== 0) { process.stderr.write(check.stderr); process.exit(1); }
    const info = JSON.parse(check.stdout);
    const other = booted === 'A' ? 'B' : 'A';
    const s = status();
    for (const entry of s.slots) for (const slot of Object.values(entry)) if (slot.bootname === other)
      slot.slot_status = { bundle: { compatible: info.compatible, version: info.version }, installed: { timestamp: new Date().toISOString(), count: 1 }, status: 'ok' };
    s.boot_primary = other === 'A' ? 'rootfs.0' : 'rootfs.1';
    fs.writeFileSync(dir + '/status.json', JSON.stringify(s));
    const env = readEnv();
    env.BOOT_ORDER = other + ' ' + booted; env['BOOT_' + other + '_LEFT'] = '3'; env['BOOT_' + other + '_TRIAL'] = '1';
    writeEnv(env);
    console.log('installing: 100% Installing done.');
  };
  if (/^https?:/.test(source)) {
    // RAUC streams it; the fake fetches it whole (the same bytes reach the same checks), trusting --tls-ca.
    const tls = flag('tls-ca');
    const lib = require(source.startsWith('https:') ? 'https' : 'http');
    const out = dir + '/streamed.raucb';
    console.log('  0% Installing');
    const req = lib.get(source, tls ? { ca: fs.readFileSync(tls) } : {}, (res) => {
      if (res.statusCode !== 200) { process.stderr.write('Failed to download bundle: HTTP ' + res.statusCode + '\\n'); process.exit(1); }
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => { fs.writeFileSync(out, Buffer.concat(chunks)); console.log(' 50% Checking bundle'); install(out); });
      res.on('error', (e) => { process.stderr.write('streaming failed: ' + e.message + '\\n'); process.exit(1); });
    });
    req.setTimeout(Number(process.env.FAKE_RAUC_STREAM_TIMEOUT_MS || 30000), () => { process.stderr.write('streaming failed: timeout\\n'); process.exit(1); });
    req.on('error', (e) => { process.stderr.write('streaming failed: ' + e.message + '\\n'); process.exit(1); });
  } else install(source);
} else if (plain[0] === 'status' && plain[1] === 'mark-good') {
  log('mark-good ' + booted);
  const env = readEnv();
  env['BOOT_' + booted + '_LEFT'] = '3'; env['BOOT_' + booted + '_TRIAL'] = '0';
  writeEnv(env);
  console.log('marked slot rootfs as good');
} else if (plain[0] === 'status') {
  log('status');
  const s = status();
  s.booted = booted;
  for (const entry of s.slots) for (const slot of Object.values(entry)) slot.state = slot.bootname === booted ? 'booted' : 'inactive';
  console.log(JSON.stringify(s));
} else { process.stderr.write('fake rauc: unknown command ' + args.join(' ') + '\\n'); process.exit(1); }
`;

const STATUS = {
  compatible: 'vigil-rpi-arm64',
  variant: '',
  booted: 'A',
  boot_primary: 'rootfs.0',
  slots: [
    {
      'rootfs.0': {
        class: 'rootfs',
        device: '/dev/mmcblk0p2',
        type: 'ext4',
        bootname: 'A',
        state: 'booted',
        parent: null,
        mountpoint: '/',
        boot_status: 'good',
        slot_status: { bundle: { compatible: null } },
      },
    },
    {
      'rootfs.1': {
        class: 'rootfs',
        device: '/dev/mmcblk0p3',
        type: 'ext4',
        bootname: 'B',
        state: 'inactive',
        parent: null,
        mountpoint: null,
        boot_status: 'good',
        slot_status: { bundle: { compatible: null } },
      },
    },
  ],
};

/** A box booted from `slot` with the given boot state lines; the fake rauc and its files live in `dir`. */
export function fakeBox(
  dir: string,
  slot: 'A' | 'B' = 'A',
  env = 'BOOT_ORDER=A B\nBOOT_A_LEFT=3\nBOOT_B_LEFT=3\nBOOT_A_TRIAL=0\nBOOT_B_TRIAL=0\nEND=1\n',
): FakeBox {
  mkdirSync(dir, { recursive: true });
  const rauc = join(dir, 'rauc');
  writeFileSync(join(dir, 'rauc.cjs'), FAKE);
  copyFileSync(join(dir, 'rauc.cjs'), rauc);
  chmodSync(rauc, 0o755);
  writeFileSync(join(dir, 'status.json'), JSON.stringify(STATUS));
  writeFileSync(join(dir, 'calls.log'), '');
  const box: FakeBox = {
    rauc,
    cmdline: join(dir, 'cmdline'),
    bootEnv: join(dir, 'boot.env'),
    log: join(dir, 'calls.log'),
    failInstall: (words) => writeFileSync(join(dir, 'install-fail'), words),
    calls: () =>
      readFileSync(join(dir, 'calls.log'), 'utf8')
        .split('\n')
        .filter((l) => l !== '' && l !== 'status'),
    boot: (booted, text) => {
      writeFileSync(join(dir, 'cmdline'), `console=ttyAMA0 root=PARTUUID=abc-02 rauc.slot=${booted} rootwait\n`);
      writeFileSync(join(dir, 'boot.env'), text);
    },
  };
  box.boot(slot, env);
  return box;
}
