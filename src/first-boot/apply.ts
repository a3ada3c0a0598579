/**
 * `vigil first-boot`: reads vigil-setup.txt from the boot partition, validates it as a whole, applies it to
 * the target root once (all or nothing), destroys the file (overwritten, then removed: it holds secrets),
 * and leaves a result file beside it and a status file in the data dir (docs/first-boot.md).
 * Works on any root directory, so tests run it on a temporary tree.
 */
import { existsSync, lstatSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { hashPassword, randomPassword } from '../auth/passwords.js';
import { PENDING_DIR } from '../backup/stage-restore.js';
import { trustedDirectory } from '../init/trusted-dir.js';
import { removeBootBackup, stageBootRestore } from './boot-restore.js';
import { destroyFile, generateSshHostKeys, readRegularFile, SystemFiles } from './system-files.js';
import {
  parseSetupFile,
  RESULT_FILE,
  SETUP_FILE,
  MAX_SETUP_BYTES,
  type SetupConfig,
  type SetupLineError,
} from './setup-file.js';
import {
  DEFAULT_HOSTNAME,
  DEFAULT_TIMEZONE,
  PATHS,
  renderAuthorizedKeys,
  renderHostname,
  renderHosts,
  renderNtp,
  renderWifiNetwork,
  renderWiredNetwork,
  renderWpaSupplicant,
} from './render.js';
import { renderResult } from './result-file.js';
import { writeProvisionedAdmin, writeStatus, type FirstBootStatus } from './status.js';
import { storePath } from '../store/store-path.js';

export interface FirstBootOptions {
  readonly bootDir: string;
  /** The root the system files go to: `/` on the box, a temporary tree in tests. */
  readonly root: string;
  readonly dataDir: string;
  readonly now?: () => Date;
  readonly hash?: (password: string) => Promise<string>;
  readonly generatePassword?: () => string;
  /** Creates missing SSH host keys under root (default: `ssh-keygen -A -f root`). */
  readonly sshHostKeys?: (root: string) => void;
}

export type FirstBootOutcome =
  /** No setup file: nothing is read or written. */
  | { readonly kind: 'absent' }
  | { readonly kind: 'applied'; readonly applied: readonly string[]; readonly generatedPassword: string | null }
  | { readonly kind: 'rejected'; readonly errors: readonly SetupLineError[] };

export async function runFirstBoot(options: FirstBootOptions): Promise<FirstBootOutcome> {
  const now = (options.now ?? (() => new Date()))();
  // The one trigger is the setup file on the boot partition, which only root can write on the box; never
  // the absence of a file in the data dir, which the gateway's own user controls (docs/security.md "First boot runs as root").
  // No file: defaults stay (DHCP; the gateway makes the first password and shows it on the console).
  if (!pathExists(join(options.bootDir, SETUP_FILE))) return { kind: 'absent' };
  // An unsafe boot dir (anyone but root can write it) gets nothing read, written or destroyed: UNSAFE_PATH.
  const bootDir = trustedDirectory(options.bootDir).path;
  const setupPath = join(bootDir, SETUP_FILE);

  const dataDirProblem = unsafeDataDir(options.dataDir);
  let outcome: FirstBootOutcome;
  if (dataDirProblem !== null) {
    // Checked before anything is applied: a file whose run cannot be completed changes nothing.
    outcome = { kind: 'rejected', errors: [{ line: 0, message: dataDirProblem }] };
  } else {
    try {
      outcome = await readAndApply(setupPath, options);
    } catch (err) {
      outcome = { kind: 'rejected', errors: [{ line: 0, message: `applying failed: ${(err as Error).message}` }] };
    }
  }
  const status: FirstBootStatus =
    outcome.kind === 'applied'
      ? { outcome: 'applied', at: now.toISOString(), applied: outcome.applied, errors: [] }
      : {
          outcome: 'rejected',
          at: now.toISOString(),
          applied: [],
          errors: outcome.kind === 'rejected' ? outcome.errors : [],
        };
  // Result and status first, destruction last: a power cut in between re-applies the same file next boot.
  new SystemFiles(bootDir).write(
    RESULT_FILE,
    renderResult(status, outcome.kind === 'applied' ? outcome.generatedPassword : null),
    0o600,
  );
  if (dataDirProblem === null) writeStatus(options.dataDir, status);
  destroyFile(setupPath);
  return outcome;
}

function unsafeDataDir(dataDir: string): string | null {
  try {
    trustedDirectory(dataDir, { serviceOwned: true });
    return null;
  } catch (err) {
    return `unsafe data dir: ${(err as Error).message}`;
  }
}

async function readAndApply(setupPath: string, options: FirstBootOptions): Promise<FirstBootOutcome> {
  const bytes = readRegularFile(setupPath, MAX_SETUP_BYTES);
  if (bytes.length > MAX_SETUP_BYTES)
    return {
      kind: 'rejected',
      errors: [{ line: 0, message: `${SETUP_FILE} is larger than ${MAX_SETUP_BYTES} bytes` }],
    };
  const root = options.root;
  const parsed = parseSetupFile(bytes.toString('utf8'), {
    zoneExists: (name) => existsSync(join(root, 'usr/share/zoneinfo', name)),
    gatewayInitialised: existsSync(storePath(options.dataDir)),
  });
  if (!parsed.ok) return { kind: 'rejected', errors: parsed.errors };
  // Checked and staged whole before any system file is written: a refused backup changes nothing.
  const restore = await stageBootRestore(options.bootDir, options.dataDir, parsed.config.restorePassphrase);
  if (restore.kind === 'refused') return { kind: 'rejected', errors: restore.errors };
  let applied: string[];
  try {
    applied = applySystem(parsed.config, options);
  } catch (err) {
    if (restore.kind === 'staged') rmSync(join(options.dataDir, PENDING_DIR), { recursive: true, force: true });
    throw err;
  }
  if (restore.kind === 'staged') {
    removeBootBackup(restore.file);
    const { header } = restore;
    applied.push(
      `restore: the backup of ${header.instance_name || 'a box'} made ${header.created_at} by version ${header.app_version}${header.journal ? ' with its journal' : ''} (the gateway applies it at its first start; the backup file was removed)`,
    );
    return { kind: 'applied', applied, generatedPassword: null };
  }
  const generatedPassword =
    parsed.config.adminPassword === null && !existsSync(storePath(options.dataDir))
      ? (options.generatePassword ?? (() => randomPassword(20)))()
      : null;
  const password = parsed.config.adminPassword ?? generatedPassword;
  if (password !== null) {
    const hash = await (options.hash ?? ((p: string) => hashPassword(p)))(password);
    writeProvisionedAdmin(options.dataDir, { password_hash: hash, instance_name: parsed.config.instanceName });
    applied.push(
      parsed.config.adminPassword !== null
        ? 'admin password: from vigil-setup.txt'
        : 'admin password: generated (below)',
    );
  }
  if (parsed.config.instanceName !== null) applied.push(`instance name: ${parsed.config.instanceName}`);
  return { kind: 'applied', applied, generatedPassword };
}

/**
 * The whole system state a setup file describes: a key left out gets its default (docs/first-boot.md),
 * so a second setup file never leaves half of an earlier one behind.
 */
function applySystem(config: SetupConfig, options: FirstBootOptions): string[] {
  const files = new SystemFiles(options.root);
  files.check(
    PATHS.hostname,
    PATHS.hosts,
    PATHS.localtime,
    PATHS.timezone,
    PATHS.wired,
    PATHS.wifi,
    PATHS.wpa,
    PATHS.wpaWants,
    PATHS.ntp,
    PATHS.authorizedKeys,
    PATHS.sshWants,
    'etc/ssh/sshd_config',
  );
  const applied: string[] = [];

  const hostname = config.hostname ?? DEFAULT_HOSTNAME;
  files.write(PATHS.hostname, renderHostname(hostname));
  files.write(PATHS.hosts, renderHosts(hostname));
  applied.push(`hostname: ${hostname}`);

  const timezone = config.timezone ?? DEFAULT_TIMEZONE;
  files.symlink(PATHS.localtime, `/usr/share/zoneinfo/${timezone}`);
  files.write(PATHS.timezone, `${timezone}\n`);
  applied.push(`time zone: ${timezone}`);

  files.write(PATHS.wired, renderWiredNetwork(config.network));
  const dns = config.network.dns.length > 0 ? `, DNS ${config.network.dns.join(' ')}` : '';
  applied.push(
    config.network.mode === 'dhcp'
      ? `wired network: DHCP${dns}`
      : `wired network: static ${config.network.address} via ${config.network.gateway}${dns}`,
  );

  if (config.wifi) {
    files.write(PATHS.wifi, renderWifiNetwork());
    files.write(PATHS.wpa, renderWpaSupplicant(config.wifi), 0o600);
    files.symlink(PATHS.wpaWants, PATHS.wpaUnit);
    applied.push(
      `Wi-Fi: '${config.wifi.ssid}' (DHCP${config.wifi.passphrase === null ? ', open network' : ', passphrase kept only as its PSK'}${config.wifi.country ? `, country ${config.wifi.country}` : ''})`,
    );
  } else {
    files.remove(PATHS.wifi, PATHS.wpa, PATHS.wpaWants);
    applied.push('Wi-Fi: off');
  }

  if (config.ntp.length > 0) {
    files.write(PATHS.ntp, renderNtp(config.ntp));
    applied.push(`NTP: ${config.ntp.join(' ')}`);
  } else {
    files.remove(PATHS.ntp);
    applied.push('NTP: Debian defaults (and servers offered by DHCP)');
  }

  if (config.sshAuthorizedKeys.length > 0) {
    files.mkdir('root/.ssh', 0o700);
    files.write(PATHS.authorizedKeys, renderAuthorizedKeys(config.sshAuthorizedKeys), 0o600);
    (options.sshHostKeys ?? generateSshHostKeys)(options.root);
    files.symlink(PATHS.sshWants, PATHS.sshUnit);
    applied.push(`SSH: on, ${config.sshAuthorizedKeys.length} authorized key(s) for root, host keys made on this box`);
  } else {
    files.remove(PATHS.authorizedKeys, PATHS.sshWants);
    applied.push('SSH: off (no ssh_authorized_key)');
  }
  return applied;
}

function pathExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
