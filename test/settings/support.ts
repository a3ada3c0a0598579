/**
 * Shared pieces of the settings tests: an environment whose outside checks are recorded and
 * answered from tables (the real ones have their own tests), and short-hands to validate.
 */
import type { ValidationEnv } from '../../src/settings/environment.js';
import { defaultSettings, type DatabaseSettings, type Settings } from '../../src/settings/schema.js';
import { validateSettingsUpdate, type ValidationResult } from '../../src/settings/validate.js';

export interface RecordingEnv extends ValidationEnv {
  serialChecked: string[];
  databaseChecked: DatabaseSettings[];
  hashed: string[];
}

export function testEnv(
  options: { devices?: string[]; databaseAnswer?: string | null; maxUsers?: number } = {},
): RecordingEnv {
  const env: RecordingEnv = {
    serialChecked: [],
    databaseChecked: [],
    hashed: [],
    maxUsers: options.maxUsers ?? 100,
    isSerialDevice: async (path) => {
      env.serialChecked.push(path);
      return (options.devices ?? ['/dev/ttyUSB0', '/dev/ttyUSB1']).includes(path);
    },
    checkDatabase: async (db) => {
      env.databaseChecked.push(db);
      return options.databaseAnswer ?? null;
    },
    // Cheap and recognisable: the tests look at which passwords were hashed, not at scrypt.
    hash: async (password) => {
      env.hashed.push(password);
      return `hash:${password.length}:${env.hashed.length}`;
    },
  };
  return env;
}

/**
 * The defaults plus the receivers a configured site has (TCP id 1 and UDP id 2, both port 10001):
 * the base the rules are tested against, since the defaults themselves have no receiver.
 */
export function siteSettings(): Settings {
  const d = defaultSettings();
  const ip = {
    bind_address: '0.0.0.0',
    require_encryption: false,
    time_window_past_s: 40,
    time_window_future_s: 20,
    check_plain_timestamps: false,
    accept_local_time: false,
    tolerate_binary_crc: true,
    tolerate_cr_counted: true,
    tolerate_trailing_bytes: true,
    tolerate_empty_line: true,
    tolerate_text_account: false,
  };
  return {
    ...d,
    receivers: {
      ...d.receivers,
      tcp_receivers: [
        {
          id: 1,
          name: 'DC-09 TCP',
          port: 10001,
          ...ip,
          max_connections_per_source: 256,
          max_accepts_per_source_per_min: 600,
          first_frame_timeout_s: 30,
        },
      ],
      udp_receivers: [{ id: 2, name: 'DC-09 UDP', port: 10001, ...ip, max_datagrams_per_source_per_s: 500 }],
    },
  } as Settings;
}

/** The error lines for a patch against a configured site (or `current`); [] when it is accepted. */
export async function errorsOf(
  patch: unknown,
  current: Settings = siteSettings(),
  env: ValidationEnv = testEnv(),
): Promise<string[]> {
  const result = await validateSettingsUpdate(current, patch, env);
  return result.ok ? [] : result.errors;
}

export async function accepted(
  patch: unknown,
  current: Settings = siteSettings(),
  env: ValidationEnv = testEnv(),
): Promise<Settings> {
  const result: ValidationResult = await validateSettingsUpdate(current, patch, env);
  if (!result.ok) throw new Error(`expected the patch to be accepted, got:\n${result.errors.join('\n')}`);
  return result.next;
}

export const SECRET64 = 'vigil-test-jwt-secret:'.padEnd(64, 'Z');

export function user(id: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    login: `user${id}`,
    password: `pw-${id}-long`,
    token_time: 60,
    scopes: ['settings'],
    visible_receivers: { all: true, custom: [] },
    ...extra,
  };
}

export function output(id: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    name: `Out ${id}`,
    type: 1,
    protocol: 'MLR2',
    identificator: '192.0.2.10:1025',
    oid: 1,
    receiver_number: 1,
    line_number: 1,
    ...extra,
  };
}
