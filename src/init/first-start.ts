/**
 * First start of an empty data dir: a random 64-character JWT secret, a self-signed TLS pair,
 * and a first administrator whose random password goes to a 0600 file and is shown once, unless first
 * boot provisioned the account from vigil-setup.txt (src/first-boot, docs/first-boot.md).
 * An initialised dir (its settings carry a JWT secret) is never touched again.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { hashPassword, randomPassword } from '../auth/passwords.js';
import type { Logger } from '../core/logger.js';
import type { Settings } from '../settings/schema.js';
import { PROVISION_FILE, readProvisionedAdmin } from './provisioned-admin.js';
import { writeFileAtomic } from './atomic-write.js';
import { createSelfSignedCertificate } from './self-signed.js';

export const FIRST_LOGIN = 'admin';
export const PASSWORD_FILE = 'initial-admin-password';
/**
 * Privileged scopes the first account holds as grants, so an installer can command devices and take a
 * backup of the box at once (docs/backup.md "Who may").
 */
export const FIRST_ACCOUNT_GRANTS = ['device_control', 'restart_services', 'system_update'] as const;

export interface InitDeps {
  readonly dataDir: string;
  readonly settings: { current(): Settings; replaceForInit(next: Settings): Promise<Settings> };
  /** The grant is a command to the store's one writer (`store.write.grants`), awaited. */
  readonly grants: { set(userId: number, scopes: string[], grantedBy: string): Promise<void> };
  readonly logger: Logger;
  readonly hash?: (password: string) => Promise<string>;
}

export type InitResult =
  | { readonly initialised: false }
  | { readonly initialised: true; readonly login: string; readonly password: string; readonly passwordFile: string }
  /** The first account's password came from vigil-setup.txt (docs/first-boot.md): nothing to show. */
  | { readonly initialised: true; readonly login: string; readonly password: null; readonly passwordFile: null };

export function isInitialised(settings: Settings): boolean {
  return settings.api.api_jwt_secret.length === 64;
}

export function newJwtSecret(): string {
  // 48 random bytes are exactly 64 base64url characters (api.api_jwt_secret: exactly 64).
  return randomBytes(48).toString('base64url');
}

export async function initialiseDataDir(deps: InitDeps): Promise<InitResult> {
  const current = deps.settings.current();
  if (isInitialised(current)) return { initialised: false };
  const dataDir = resolve(deps.dataDir);
  const tlsDir = join(dataDir, 'tls');
  mkdirSync(tlsDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);

  const keyPath = join(tlsDir, 'key.pem');
  const certPath = join(tlsDir, 'cert.pem');
  const pair = createSelfSignedCertificate({
    commonName: hostname() || 'vigil',
    altNames: [...new Set([hostname() || 'vigil', 'localhost', '127.0.0.1', '::1'])],
    validDays: 3650,
  });
  writeFileAtomic(keyPath, pair.keyPem, 0o600);
  writeFileAtomic(certPath, pair.certPem, 0o644);

  // First boot may have provisioned the first account (its password hash) and the instance name.
  const provisioned = readProvisionedAdmin(dataDir);
  const password = provisioned ? null : randomPassword(20);
  const passwordFile = provisioned ? null : join(dataDir, PASSWORD_FILE);
  // The password file is written before the settings: a crash in between leaves an
  // uninitialised dir whose next start simply makes a new password.
  if (password !== null && passwordFile !== null) writeFileAtomic(passwordFile, `${FIRST_LOGIN}\n${password}\n`, 0o600);

  const hash = deps.hash ?? ((p: string) => hashPassword(p));
  await deps.settings.replaceForInit({
    ...current,
    api: { ...current.api, api_jwt_secret: newJwtSecret(), private_key: keyPath, public_key: certPath },
    general: { ...current.general, instance_name: provisioned?.instance_name ?? current.general.instance_name },
    users: [
      {
        id: 1,
        login: FIRST_LOGIN,
        password_hash: provisioned?.password_hash ?? (await hash(password!)),
        token_time: 720,
        scopes: ['settings', 'users', 'events', 'objects'],
        visible_receivers: { all: true, custom: [] },
      },
    ],
  });
  await deps.grants.set(1, [...FIRST_ACCOUNT_GRANTS], 'first-start');
  deps.logger.info('data dir initialised', {
    data_dir: dataDir,
    login: FIRST_LOGIN,
    password_from: provisioned ? 'vigil-setup.txt' : 'generated',
  });
  if (provisioned) {
    rmSync(join(dataDir, PROVISION_FILE), { force: true });
    return { initialised: true, login: FIRST_LOGIN, password: null, passwordFile: null };
  }
  return { initialised: true, login: FIRST_LOGIN, password: password!, passwordFile: passwordFile! };
}
