/**
 * The settings schema, declared once (contract: management-api.md §Resources). Two views:
 * - `SettingsSchema`: the stored settings, every section complete; defaults live here and only here
 *   (`defaultSettings()` is this schema applied to `{}`).
 * - `SettingsUpdateSchema`: the body of PUT /api/settings; every top-level key optional, every field
 *   of an object section optional (omitted = keep), a supplied array replaces the stored one whole.
 * Rules that span fields or items (uniqueness, references, conditionals) live in cross-validate.ts.
 */
import * as v from 'valibot';
import {
  CONTROL_CHARACTERS,
  bool,
  fixedSecret,
  hex,
  id,
  int,
  ipAddress,
  list,
  nonEmpty,
  obj,
  oneOf,
  optionalEntries,
  password,
  port,
  str,
} from './fields.js';
import { DEFAULT_INTERNAL_EVENTS, INTERNAL_EVENT_TYPES } from './internal-events.js';
import { hwSchema, hwUpdateSchema } from './schema-hw.js';
import { outputSchema } from './schema-outputs.js';
import { receiversEntries } from './schema-receivers.js';
import { admissionEntries } from './schema-admission.js';
import { updatesEntries } from './schema-updates.js';
import { USER_SCOPES } from '../auth/scopes.js';

/**
 * database.sql_tls_mode (Vigil field, docs/settings.md §database): "disabled" = plain TCP, and only
 * hash-challenge logins that never send the password; "required" = TLS without checking the
 * server's certificate; "verify" = TLS with the chain checked against sql_tls_ca_file (or the
 * system CAs when empty) and the certificate's name or IP checked against sqlhost.
 */
export const SQL_TLS_MODES = ['disabled', 'required', 'verify'] as const;
export const DEFAULT_MAX_USERS = 100;
/** Contract: token_time 1..5,256,000 minutes (ten years). */
export const TOKEN_TIME_MAX = 5_256_000;
/** How many sessions the session log keeps per device (database.device_session_log_count). */
export const DEFAULT_SESSION_LOG_COUNT = 10;

const apiEntries = {
  api_port: v.optional(port, 8443),
  api_http_port: v.optional(port, 8080),
  bind_address: v.optional(ipAddress, '0.0.0.0'),
  // Plain HTTP for clients other than the box itself (docs/settings.md §api, docs/security.md "Transport").
  allow_plain_http: v.optional(bool, false),
  // Empty until the first start writes a random secret and key paths (docs/settings.md §api).
  api_jwt_secret: v.optional(
    v.pipe(
      str,
      v.check((s) => s === '' || s.length === 64, 'must be exactly 64 characters'),
    ),
    '',
  ),
  private_key: v.optional(str, ''),
  public_key: v.optional(str, ''),
};

/** How many servers database.sql_servers may add to sqlhost:sqlport (a Galera cluster has 3..9 nodes). */
export const MAX_SQL_SERVERS = 8;

/** One more server of the same database (a Galera node), tried after sqlhost:sqlport (docs/settings.md §database). */
const sqlServerSchema = obj({
  host: nonEmpty,
  port: v.optional(int(0, 65535, 'must be between 0 and 65535 (0 means 3306)'), 3306),
});

const databaseEntries = {
  enabled: v.optional(bool, false),
  // Required (non-empty) only when enabled: checked in cross-validate.ts on the merged section.
  sqluser: v.optional(str, 'vigil'),
  sqlpass: v.optional(str, ''),
  sqlhost: v.optional(str, '127.0.0.1'),
  sqldatabase: v.optional(str, 'vigil'),
  // Contract: "the value 0 is treated as 3306" — stored as given, resolved where the connection is made.
  sqlport: v.optional(int(0, 65535, 'must be between 0 and 65535 (0 means 3306)'), 3306),
  remove_lost_objects_age: v.optional(int(1, 365), 30),
  remove_events_age: v.optional(int(1, 365), 90),
  device_session_log_count: v.optional(int(1, 25), DEFAULT_SESSION_LOG_COUNT),
  // "disabled" keeps installations saved before these fields working (docs/settings.md §database).
  sql_tls_mode: v.optional(oneOf(SQL_TLS_MODES), 'disabled'),
  // Vigil field: the other servers of the same database, in the order the sync fails over to them.
  sql_servers: v.optional(
    v.pipe(list(sqlServerSchema), v.maxLength(MAX_SQL_SERVERS, `must list at most ${MAX_SQL_SERVERS} servers`)),
    [],
  ),
  // Empty = the system's CAs. A path is read and checked when an update names it (pem-check.ts).
  sql_tls_ca_file: v.optional(
    v.pipe(
      str,
      v.check((s) => !CONTROL_CHARACTERS.test(s), 'must not contain control characters'),
    ),
    '',
  ),
};

const deviceStatusOutputEntries = {
  enabled: v.optional(bool, false),
  port: v.optional(port, 10010),
  encryption_enabled: v.optional(bool, false),
  encryption_key: v.optional(str, ''),
};

const generalEntries = {
  instance_name: v.optional(nonEmpty, 'vigil'),
  // Minutes (contract: "unit: not shown"); upper bound one year (Vigil decision).
  synchronize_device_time_interval: v.optional(int(1, 525_600), 1440),
};

const trackerEntries = {
  timeout_multiplier: v.optional(int(1, 100), 3),
  sms_timeout_multiplier: v.optional(int(1, 100), 2),
  timeout_tolerance: v.optional(int(0, 3600), 60),
  sms_timeout_tolerance: v.optional(int(0, 3600), 600),
  event_count_for_restore: v.optional(int(1, 10), 1),
  event_count_for_restore_sms: v.optional(int(1, 10), 1),
};

export const ignorableStartupEventSchema = obj({ event_code: hex(0xfff), group_no: hex(0xff), zone_no: hex(0xfff) });

// Contract: internal events use "the same kind of bound" as ignorable ones; Vigil uses the same bounds.
export const internalEventSchema = obj({
  type: oneOf(INTERNAL_EVENT_TYPES),
  classificator: oneOf(['E', 'R']),
  event_code: hex(0xfff),
  group_no: hex(0xff),
  zone_no: hex(0xfff),
  name: nonEmpty,
});

const visibleReceiversSchema = obj({ all: bool, custom: list(id) });

const userCommonEntries = {
  id,
  login: nonEmpty,
  token_time: int(1, TOKEN_TIME_MAX),
  scopes: list(oneOf(USER_SCOPES)),
  visible_receivers: visibleReceiversSchema,
};

/** Stored form: the scrypt hash, never the password. */
export const storedUserSchema = obj({ ...userCommonEntries, password_hash: str });
/** Update form: the password in clear (hashed before saving); optional for an id that already exists. */
export const updateUserSchema = obj({ ...userCommonEntries, password: v.optional(password) });

export const SettingsSchema = obj({
  admission: v.optional(obj(admissionEntries), {}),
  api: v.optional(obj(apiEntries), {}),
  database: v.optional(obj(databaseEntries), {}),
  device_status_output: v.optional(obj(deviceStatusOutputEntries), {}),
  general: v.optional(obj(generalEntries), {}),
  hw: v.optional(hwSchema, {}),
  ignorable_startup_events: v.optional(list(ignorableStartupEventSchema), []),
  internal_events: v.optional(list(internalEventSchema), () => DEFAULT_INTERNAL_EVENTS.map((e) => ({ ...e }))),
  outputs: v.optional(list(outputSchema), []),
  receivers: v.optional(obj(receiversEntries), {}),
  tracker: v.optional(obj(trackerEntries), {}),
  updates: v.optional(obj(updatesEntries), {}),
  users: v.optional(list(storedUserSchema), []),
});

const updateApiEntries = {
  ...optionalEntries(apiEntries),
  // Supplied values are held to the contract (the stored form may still be empty before the first start).
  api_jwt_secret: v.optional(fixedSecret([64])),
  private_key: v.optional(nonEmpty),
  public_key: v.optional(nonEmpty),
};

export const SettingsUpdateSchema = obj({
  admission: v.optional(obj(optionalEntries(admissionEntries))),
  api: v.optional(obj(updateApiEntries)),
  database: v.optional(obj(optionalEntries(databaseEntries))),
  device_status_output: v.optional(obj(optionalEntries(deviceStatusOutputEntries))),
  general: v.optional(obj(optionalEntries(generalEntries))),
  hw: v.optional(hwUpdateSchema),
  ignorable_startup_events: v.optional(list(ignorableStartupEventSchema)),
  internal_events: v.optional(list(internalEventSchema)),
  outputs: v.optional(list(outputSchema)),
  receivers: v.optional(obj(optionalEntries(receiversEntries))),
  tracker: v.optional(obj(optionalEntries(trackerEntries))),
  updates: v.optional(obj(optionalEntries(updatesEntries))),
  users: v.optional(list(updateUserSchema)),
});

export type Settings = v.InferOutput<typeof SettingsSchema>;
export type SettingsUpdate = v.InferOutput<typeof SettingsUpdateSchema>;
export type AdmissionSettings = Settings['admission'];
export type ApiSettings = Settings['api'];
export type DatabaseSettings = Settings['database'];
export type DeviceStatusOutputSettings = Settings['device_status_output'];
export type GeneralSettings = Settings['general'];
export type HwLedsSettings = Settings['hw']['leds'];
export type TrackerSettings = Settings['tracker'];
export type UpdatesSettings = Settings['updates'];
export type ReceiversSettings = Settings['receivers'];
export type IgnorableStartupEvent = v.InferOutput<typeof ignorableStartupEventSchema>;
export type InternalEventSettings = v.InferOutput<typeof internalEventSchema>;
export type UserSettings = v.InferOutput<typeof storedUserSchema>;
export type UserUpdate = v.InferOutput<typeof updateUserSchema>;
export type UserScope = (typeof USER_SCOPES)[number];
export type SqlTlsMode = (typeof SQL_TLS_MODES)[number];

/** The factory defaults: the schema applied to nothing. A fresh object on every call. */
export function defaultSettings(): Settings {
  return v.parse(SettingsSchema, {});
}

export { INTERNAL_EVENT_TYPES, type InternalEventType } from './internal-events.js';
export { SECRET_MASK, parseHostPort, isValidSiaKey } from './fields.js';
export * from './schema-outputs.js';
export * from './schema-receivers.js';
export { ADMISSION_DEFAULTS } from './schema-admission.js';
