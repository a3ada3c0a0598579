/**
 * Update semantics of PUT /api/settings (contract: "only fields supplied are changed"; whether a
 * supplied array replaces or merges is "not shown" — Vigil: it REPLACES the stored array whole).
 * - object sections (and hw.leds inside hw): supplied fields overwrite, omitted fields keep their stored value;
 * - arrays (users, outputs, event lists, each receivers list): replaced whole;
 * - users are matched by id: an existing id without `password` keeps its hash;
 * - a secret sent back as the mask "********" (what publicView() shows) keeps the stored value.
 */
import { SECRET_MASK, isPlainObject } from './fields.js';
import { line } from './issues.js';
import type { Settings, SettingsUpdate } from './schema.js';

const OBJECT_SECTIONS = [
  'admission',
  'api',
  'database',
  'device_status_output',
  'general',
  'receivers',
  'tracker',
  'updates',
] as const;
const ARRAY_SECTIONS = ['ignorable_startup_events', 'internal_events', 'outputs'] as const;

/** Secret fields of object sections: the mask drops the key, so the stored value is kept. */
const SECTION_SECRETS: readonly [string, string][] = [
  ['api', 'api_jwt_secret'],
  ['database', 'sqlpass'],
  ['device_status_output', 'encryption_key'],
];

const MASK_WITHOUT_STORED = `"${SECRET_MASK}" keeps a stored secret, but the item with this id has none`;

function items(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

/** In an array item: the mask takes the value of the stored item with the same id, if it has one. */
function keepItemSecret(
  item: Record<string, unknown>,
  key: string,
  stored: string | undefined,
  path: string,
  errors: string[],
): void {
  if (item[key] !== SECRET_MASK) return;
  if (stored !== undefined && stored !== '') {
    item[key] = stored;
  } else {
    errors.push(line(path, MASK_WITHOUT_STORED));
    delete item[key];
  }
}

/**
 * Replaces masks in the RAW body (before the schema sees it, since "********" is not a valid key
 * length) and drops unchanged key paths. Works on a copy; the caller's object is not touched.
 */
export function unmaskSecrets(
  raw: Record<string, unknown>,
  current: Settings,
): { body: Record<string, unknown>; errors: string[] } {
  const body = structuredClone(raw);
  const errors: string[] = [];
  for (const [section, key] of SECTION_SECRETS) {
    const part = body[section];
    if (isPlainObject(part) && part[key] === SECRET_MASK) delete part[key];
  }
  // Key paths sent back unchanged are no change: before the first start they are "" (which an
  // update may not set), and a public view must still round-trip.
  const api = body.api;
  if (isPlainObject(api)) {
    for (const key of ['private_key', 'public_key'] as const) if (api[key] === current.api[key]) delete api[key];
  }
  const receivers = body.receivers;
  if (isPlainObject(receivers)) {
    for (const list of ['tcp_receivers', 'udp_receivers', 'modem_receivers'] as const) {
      const stored = current.receivers[list] as { id: number; encryption_password?: string; sim_pin?: string }[];
      items(receivers[list]).forEach((item, i) => {
        const old = stored.find((r) => r.id === item.id);
        const at = `receivers.${list}[${i}]`;
        keepItemSecret(item, 'encryption_password', old?.encryption_password, `${at}.encryption_password`, errors);
        if (list === 'modem_receivers') keepItemSecret(item, 'sim_pin', old?.sim_pin, `${at}.sim_pin`, errors);
      });
    }
  }
  items(body.outputs).forEach((item, i) => {
    const old = current.outputs.find((o) => o.id === item.id);
    const sia = item.sia_dc09;
    if (isPlainObject(sia))
      keepItemSecret(
        sia,
        'encryption_key',
        old?.sia_dc09?.encryption_key,
        `outputs[${i}].sia_dc09.encryption_key`,
        errors,
      );
    const webhook = item.webhook;
    if (isPlainObject(webhook))
      keepItemSecret(webhook, 'secret', old?.webhook?.secret, `outputs[${i}].webhook.secret`, errors);
  });
  return { body, errors };
}

export interface MergeResult {
  settings: Settings;
  /** Passwords supplied in the patch, by index into settings.users: hashed only once everything is valid. */
  passwords: Map<number, string>;
  errors: string[];
}

function definedOnly<T extends object>(part: T): Partial<T> {
  return Object.fromEntries(Object.entries(part).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** Merges a schema-checked patch into a copy of the current settings. */
export function mergeUpdate(current: Settings, patch: SettingsUpdate): MergeResult {
  const settings = structuredClone(current) as Settings;
  const target = settings as Record<string, unknown>;
  for (const section of OBJECT_SECTIONS) {
    const part = patch[section];
    if (part !== undefined) target[section] = { ...settings[section], ...definedOnly(part) };
  }
  for (const section of ARRAY_SECTIONS) {
    if (patch[section] !== undefined) target[section] = structuredClone(patch[section]);
  }
  // hw holds object sections one level down (hw.leds): merged field by field the same way.
  if (patch.hw?.leds !== undefined)
    settings.hw = { ...settings.hw, leds: { ...settings.hw.leds, ...definedOnly(patch.hw.leds) } };
  const passwords = new Map<number, string>();
  const errors: string[] = [];
  if (patch.users !== undefined) {
    settings.users = patch.users.map((user, i) => {
      const { password, ...rest } = user;
      const existing = current.users.find((u) => u.id === user.id);
      if (password !== undefined) passwords.set(i, password);
      else if (existing === undefined) errors.push(line(`users[${i}].password`, 'required for a new user'));
      return { ...structuredClone(rest), password_hash: existing?.password_hash ?? '' };
    });
  }
  return { settings, passwords, errors };
}

/** Hashes the supplied passwords one at a time (scrypt is memory-hungry on a Pi). */
export async function applyPasswords(
  result: MergeResult,
  hash: (password: string) => Promise<string>,
): Promise<Settings> {
  for (const [index, password] of result.passwords) {
    const user = result.settings.users[index];
    if (user) user.password_hash = await hash(password);
  }
  return result.settings;
}
