/**
 * The device-link keys by UID (migration 8, docs/device-link.md §4.4). The key never leaves this
 * repository except to the HELLO check: it is not part of any object read, API body or log line.
 */
import type { Clock } from '../core/clock.js';
import type { Database } from './database.js';
import { StatementCache, guard } from './sql.js';

export interface DeviceKeyRecord {
  readonly uid: string;
  /** 32 bytes, or null while the device is not enrolled. */
  readonly key: Buffer | null;
  /** ms epoch until which the UID may enrol (an installer's reset), or null. */
  readonly enrolUntil: number | null;
  readonly updatedAt: number;
}

interface Row {
  uid: string;
  key: Buffer | null;
  enrol_until: number | null;
  updated_at: number;
}

export class DeviceKeysRepo {
  private readonly sql: StatementCache;
  private readonly clock: Clock;

  constructor(db: Database, clock: Clock) {
    this.sql = new StatementCache(db);
    this.clock = clock;
  }

  get(uid: string): DeviceKeyRecord | null {
    return guard('read device key', () => {
      const row = this.sql
        .get('SELECT uid, key, enrol_until, updated_at FROM device_keys WHERE uid = ?')
        .get(uid.toUpperCase()) as Row | undefined;
      return row ? { uid: row.uid, key: row.key, enrolUntil: row.enrol_until, updatedAt: row.updated_at } : null;
    });
  }

  /** Stores the key an enrolment derived and closes the UID's enrolment window. */
  enrol(uid: string, key: Uint8Array): void {
    guard('write device key', () =>
      this.sql
        .get(
          'INSERT INTO device_keys (uid, key, enrol_until, updated_at) VALUES (?, ?, NULL, ?) ' +
            'ON CONFLICT (uid) DO UPDATE SET key = excluded.key, enrol_until = NULL, updated_at = excluded.updated_at',
        )
        .run(uid.toUpperCase(), Buffer.from(key), this.clock.now()),
    );
  }

  /** Forgets the UID's key and lets it enrol until `enrolUntil` (an installer replaces the device). */
  reset(uid: string, enrolUntil: number): void {
    guard('reset device key', () =>
      this.sql
        .get(
          'INSERT INTO device_keys (uid, key, enrol_until, updated_at) VALUES (?, NULL, ?, ?) ' +
            'ON CONFLICT (uid) DO UPDATE SET key = NULL, enrol_until = excluded.enrol_until, updated_at = excluded.updated_at',
        )
        .run(uid.toUpperCase(), enrolUntil, this.clock.now()),
    );
  }
}
