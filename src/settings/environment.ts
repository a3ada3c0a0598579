/**
 * The checks that look outside the process: PEM files, serial devices and the MySQL server.
 * Devices and the database go through `ValidationEnv` so tests can substitute them; the real
 * ones are wired by defaultValidationEnv().
 */
import { OUTPUT_TYPES } from './schema-outputs.js';
import { stat } from 'node:fs/promises';
import { hashPassword } from '../auth/passwords.js';
import { checkDatabaseServers } from './database-servers.js';
import { line } from './issues.js';
import { checkCaFile, checkPemFiles } from './pem-check.js';
import type { Logger } from '../core/logger.js';
import { DEFAULT_MAX_USERS, type DatabaseSettings, type Settings, type SettingsUpdate } from './schema.js';

export interface ValidationEnv {
  /** True when the path exists and is a character device after following symlinks. */
  isSerialDevice(path: string): Promise<boolean>;
  /** null when the database answers `SELECT 1`, else a reason without the password. */
  checkDatabase(db: DatabaseSettings): Promise<string | null>;
  hash(password: string): Promise<string>;
  maxUsers: number;
}

export async function isCharacterDevice(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isCharacterDevice();
  } catch {
    return false;
  }
}

/** `logger` receives the cause of a failed connection test, which the caller is not told. */
export function defaultValidationEnv(overrides: Partial<ValidationEnv> = {}, logger?: Logger): ValidationEnv {
  return {
    isSerialDevice: isCharacterDevice,
    checkDatabase: (db) => checkDatabaseServers(db, undefined, logger),
    hash: (password) => hashPassword(password),
    maxUsers: DEFAULT_MAX_USERS,
    ...overrides,
  };
}

/**
 * Serial devices are checked for the lists the patch supplies (a USB adapter unplugged later
 * must not block an unrelated update; the receiver reports it through health instead).
 */
function serialPaths(next: Settings, patch: SettingsUpdate): { path: string; at: string }[] {
  const found: { path: string; at: string }[] = [];
  for (const list of ['com_receivers', 'modem_receivers'] as const) {
    if (patch.receivers?.[list] === undefined) continue;
    for (const [i, r] of next.receivers[list].entries())
      found.push({ path: r.port_id, at: `receivers.${list}[${i}].port_id` });
  }
  if (patch.outputs !== undefined) {
    next.outputs.forEach((o, i) => {
      // A relative identificator was already refused by the cross-field rules.
      if (o.type === OUTPUT_TYPES.com && o.identificator.startsWith('/'))
        found.push({ path: o.identificator, at: `outputs[${i}].identificator` });
    });
  }
  return found;
}

/**
 * Runs the outside checks in parallel. `known` are the lines found so far: a database section
 * that already failed a rule is not dialled.
 */
export async function environmentChecks(
  next: Settings,
  patch: SettingsUpdate,
  known: readonly string[],
  env: ValidationEnv,
): Promise<string[]> {
  // PEM files are read only when the patch names them: re-reading them on every update costs
  // ~1 ms of key parsing per request and would let a later-damaged file block unrelated changes
  // (the HTTPS listener reports such a file through health instead).
  const keyGiven = patch.api?.private_key !== undefined;
  const certGiven = patch.api?.public_key !== undefined;
  // Supplying one of the pair re-reads the other too, so the key/certificate match is checked.
  const pem = checkPemFiles(next.api, {
    privateKey: keyGiven || (certGiven && next.api.private_key !== ''),
    publicKey: certGiven || (keyGiven && next.api.public_key !== ''),
  });
  const serial = Promise.all(
    serialPaths(next, patch).map(async ({ path, at }) =>
      (await env.isSerialDevice(path)) ? [] : [line(at, 'is not an existing serial device')],
    ),
  ).then((lists) => lists.flat());
  // Like the API's key paths: read when the patch names it (docs/settings.md §database).
  const caFile = patch.database?.sql_tls_ca_file;
  const caProblems = caFile !== undefined && caFile !== '' ? await checkCaFile(caFile, 'database.sql_tls_ca_file') : [];
  // Webhook CA files: read when the patch's outputs name one (outputs are replaced whole, so every one given).
  const webhookCa = Promise.all(
    (patch.outputs ?? []).map((o, i) => {
      const path = o.webhook?.ca_file ?? '';
      const at = `outputs[${i}].webhook.ca_file`;
      return path.startsWith('/') && !known.some((l) => l.startsWith(`${at}:`))
        ? checkCaFile(path, at)
        : Promise.resolve([]);
    }),
  ).then((lists) => lists.flat());
  // The update channel's CA file: read when the patch names it (docs/settings.md §updates).
  const updatesCa = patch.updates?.ca_file;
  if (updatesCa !== undefined && updatesCa !== '')
    caProblems.push(...(await checkCaFile(updatesCa, 'updates.ca_file')));
  const dbSettled =
    caProblems.some((l) => l.startsWith('database.')) ||
    known.some((l) => l.startsWith('database.') || l.startsWith('database:'));
  const database =
    patch.database !== undefined && next.database.enabled && !dbSettled
      ? env
          .checkDatabase(next.database)
          .catch(() => 'the connection test itself failed')
          .then((reason) => (reason === null ? [] : [line('database', `connection test failed: ${reason}`)]))
      : Promise.resolve([]);
  const results = await Promise.all([pem, serial, database, webhookCa]);
  return [...caProblems, ...results.flat()];
}
