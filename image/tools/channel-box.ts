/**
 * What the channel check does around the box (docs/image.md "channel-check"): the channel's TLS files
 * (a CA and a server certificate for 10.0.2.2, the address the guest reaches the host's loopback at
 * through qemu's user network), publishing a release on the channel exactly as an operator does
 * (`./build.sh channel`: the same signer as the bundles), and the box's side through its API: the
 * channel facts of GET /api/system and POST /api/system/update/check.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Guest } from './guest.js';

/** The host's loopback as the guest sees it (qemu's user network, slirp). */
export const HOST_FROM_GUEST = '10.0.2.2';

export interface ChannelTls {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore', timeout: 60_000 });
}

/** A CA and a server certificate for 10.0.2.2 (and 127.0.0.1, for the host's own look). */
export function channelTls(dir: string): ChannelTls {
  mkdirSync(dir, { recursive: true });
  const ca = join(dir, 'channel-ca.pem');
  const caKey = join(dir, 'channel-ca.key');
  const key = join(dir, 'channel.key');
  const csr = join(dir, 'channel.csr');
  const cert = join(dir, 'channel.pem');
  const ext = join(dir, 'channel.ext');
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
    '/CN=Vigil channel-check CA',
    '-days',
    '7',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  ]);
  openssl(['req', ...ec, '-keyout', key, '-out', csr, '-subj', '/CN=channel']);
  writeFileSync(
    ext,
    `subjectAltName=IP:${HOST_FROM_GUEST},IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
  );
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
    '7',
    '-extfile',
    ext,
  ]);
  return { ca, cert, key };
}

/** vigil-0.1.1-arm64[-test-…].raucb -> 0.1.1 */
export const versionOf = (bundle: string): string => /^vigil-(\d+\.\d+\.\d+)-/.exec(basename(bundle))?.[1] ?? '?';

export interface Release {
  readonly version: string;
  readonly bundle: string;
  /** Waves as `./build.sh channel --wave` takes them: `5`, `100@2026-12-01T02:00:00Z`. */
  readonly waves?: readonly string[];
  readonly validDays?: number;
  readonly serial?: number;
}

/**
 * Publishes `release` under `www/stable/`: the bundle beside the manifest, the manifest signed by
 * `./build.sh channel` (image/channel-manifest.sh) with the build's signing keys.
 */
export function publish(repo: string, www: string, release: Release, out: string): void {
  const dir = join(www, 'stable');
  mkdirSync(dir, { recursive: true });
  const name = basename(release.bundle);
  copyFileSync(release.bundle, join(dir, name));
  const args = [
    join(repo, 'image', 'channel-manifest.sh'),
    '--version',
    release.version,
    '--bundle',
    name,
    '--out',
    join(dir, 'channel.cms'),
  ];
  for (const wave of release.waves ?? ['100']) args.push('--wave', wave);
  if (release.validDays) args.push('--valid-days', String(release.validDays));
  if (release.serial) args.push('--serial', String(release.serial));
  execFileSync('bash', args, { stdio: 'ignore', env: { ...process.env, VIGIL_IMAGE_OUT: out } });
}

/** A manifest written by hand and signed with `cert`/`key` (another CA, another board, an old expiry). */
export function publishRaw(www: string, manifest: Record<string, unknown>, cert: string, key: string): void {
  const dir = join(www, 'stable');
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'raw.json');
  writeFileSync(json, JSON.stringify(manifest));
  openssl([
    'cms',
    '-sign',
    '-binary',
    '-nodetach',
    '-outform',
    'PEM',
    '-in',
    json,
    '-signer',
    cert,
    '-inkey',
    key,
    '-out',
    join(dir, 'channel.cms'),
  ]);
}

export interface Channel {
  readonly url: string | null;
  readonly state: string;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly decision: string | null;
  readonly manifest: { readonly serial: number; readonly version: string } | null;
  readonly progress: { readonly percent: number; readonly step: string } | null;
  readonly last_install: { readonly version: string; readonly seconds: number; readonly result: string } | null;
}

export async function channelFacts(guest: Guest, token: string): Promise<Channel> {
  // It asks RAUC for the slots: seconds under emulation, more on a loaded host.
  const res = await guest.http('GET', '/api/system', { token, timeoutMs: 90_000 });
  if (res.status !== 200) throw new Error(`GET /api/system: ${res.status} ${res.text}`);
  const channel = (JSON.parse(res.text) as { channel: Channel | null }).channel;
  if (!channel) throw new Error('GET /api/system has no channel facts');
  return channel;
}

/** POST /api/system/update/check: answered once the manifest is judged (an install it starts runs on). */
export async function checkNow(guest: Guest, token: string): Promise<Channel> {
  // The manifest's fetch alone may take its whole 30 s bound (a trickling server).
  const res = await guest.http('POST', '/api/system/update/check', { token, timeoutMs: 90_000 });
  if (res.status !== 200) throw new Error(`POST /api/system/update/check: ${res.status} ${res.text}`);
  return (JSON.parse(res.text) as { channel: Channel }).channel;
}

/**
 * The longest time between two answers of GET /health while it watches (one probe every 2 s): the
 * downtime a reboot costs a client, whenever the box chose to reboot.
 */
export class HealthGaps {
  private last = 0;
  private longest = 0;
  private watching = false;
  private loop: Promise<void> | null = null;

  constructor(private readonly guest: Guest) {}

  start(): this {
    this.watching = true;
    this.last = Date.now();
    this.loop = this.watch();
    return this;
  }

  /** Stops watching; the longest gap in seconds. */
  async stop(): Promise<number> {
    this.watching = false;
    await this.loop;
    return this.longest / 1000;
  }

  private async watch(): Promise<void> {
    while (this.watching) {
      if (await this.guest.healthy()) {
        const now = Date.now();
        this.longest = Math.max(this.longest, now - this.last);
        this.last = now;
      }
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}
