/**
 * Rules that span fields or items, run on the MERGED settings (the stored values plus the patch):
 * a patch that only switches `encryption_enabled` on is judged with the stored key.
 */
import { serverKey } from './database-servers.js';
import { isPrintableAscii } from './fields.js';
import { duplicates, duplicateValues, line } from './issues.js';
import { checkOutputs, checkReceivers, receiverIds } from './cross-receivers.js';
import type { Settings } from './schema.js';

export interface CrossValidateOptions {
  /** License limit on the number of users (contract: "may be limited by the license"); Infinity = none. */
  maxUsers: number;
}

function checkDatabase(s: Settings): string[] {
  const db = s.database;
  if (!db.enabled) return [];
  const out: string[] = [];
  for (const key of ['sqluser', 'sqlhost', 'sqldatabase'] as const) {
    if (db[key].trim() === '') out.push(line(`database.${key}`, 'must not be empty when the database is enabled'));
  }
  if (db.sqlpass === '') out.push(line('database.sqlpass', 'must not be empty when the database is enabled'));
  // A server listed twice would be tried twice in a row and hide a missing node.
  const seen = new Set([serverKey(db.sqlhost, db.sqlport)]);
  db.sql_servers.forEach((server, i) => {
    const key = serverKey(server.host, server.port);
    if (seen.has(key))
      out.push(line(`database.sql_servers[${i}]`, 'names a server already listed (sqlhost:sqlport or above)'));
    seen.add(key);
  });
  return out;
}

function checkDeviceStatusOutput(s: Settings): string[] {
  const d = s.device_status_output;
  if (!d.encryption_enabled) return [];
  if (d.encryption_key.length === 16 && isPrintableAscii(d.encryption_key)) return [];
  return [
    line(
      'device_status_output.encryption_key',
      'must be exactly 16 printable ASCII characters when encryption_enabled is true',
    ),
  ];
}

function checkEventLists(s: Settings): string[] {
  const out: string[] = [];
  // Compared by numeric value: "0A", "00a" and "a" are the same code.
  const triplet = (e: { event_code: string; group_no: string; zone_no: string }): string =>
    [e.event_code, e.group_no, e.zone_no].map((h) => parseInt(h, 16)).join('/');
  out.push(
    ...duplicates(
      s.ignorable_startup_events.map((e, i) => ({
        key: triplet(e),
        path: `ignorable_startup_events[${i}]`,
        at: `ignorable_startup_events[${i}]`,
      })),
      'duplicate event_code, group_no and zone_no',
    ),
  );
  // One entry per type: the generator looks an event up by its type (Vigil rule).
  out.push(
    ...duplicates(
      s.internal_events.map((e, i) => ({
        key: e.type,
        path: `internal_events[${i}]`,
        at: `internal_events[${i}].type`,
      })),
      'must be unique among internal events',
    ),
  );
  return out;
}

function checkUsers(s: Settings, options: CrossValidateOptions): string[] {
  const out: string[] = [];
  const known = receiverIds(s);
  if (s.users.length > options.maxUsers) {
    out.push(line('users', `the license allows at most ${options.maxUsers} users (${s.users.length} given)`));
  }
  out.push(
    ...duplicates(
      s.users.map((u, i) => ({ key: u.id, path: `users[${i}]`, at: `users[${i}].id` })),
      'must be unique among users',
    ),
  );
  // Logins are compared without case so that "Admin" and "admin" cannot be two accounts (Vigil rule).
  out.push(
    ...duplicates(
      s.users.map((u, i) => ({ key: u.login.toLowerCase(), path: `users[${i}]`, at: `users[${i}].login` })),
      'must be unique among users (compared without case)',
    ),
  );
  s.users.forEach((u, i) => {
    const at = `users[${i}]`;
    out.push(...duplicateValues(u.scopes, `${at}.scopes`, 'scope'));
    const vr = u.visible_receivers;
    if (vr.all) return; // custom is ignored when all receivers are visible
    if (vr.custom.length === 0)
      out.push(line(`${at}.visible_receivers.custom`, 'must list at least one receiver when all is false'));
    vr.custom.forEach((rid, j) => {
      if (!known.has(rid)) out.push(line(`${at}.visible_receivers.custom[${j}]`, `receiver ${rid} does not exist`));
    });
    out.push(...duplicateValues(vr.custom, `${at}.visible_receivers.custom`, 'receiver id'));
  });
  return out;
}

/** Two LEDs on one line would show neither pattern (pins left null take distinct board lines). */
function checkLeds(s: Settings): string[] {
  const leds = s.hw.leds;
  const pins = (['power_pin', 'link_pin', 'trouble_pin'] as const).filter((key) => leds[key] !== null);
  return pins
    .filter((key, i) => pins.slice(0, i).some((other) => leds[other] === leds[key]))
    .map((key) => line(`hw.leds.${key}`, 'must differ from the other LED pins'));
}

/** Every cross-field violation of the merged settings, unsorted. */
export function crossValidate(s: Settings, options: CrossValidateOptions): string[] {
  return [
    ...checkDatabase(s),
    ...checkDeviceStatusOutput(s),
    ...checkEventLists(s),
    ...checkReceivers(s),
    ...checkOutputs(s),
    ...checkUsers(s, options),
    ...checkLeds(s),
  ];
}
