/**
 * Override OIDs set through PUT /api/oid-override. A row is keyed by how the main device is
 * identified (its UID or its OID/account) and by the related object's OID ('' for the main
 * device itself). There is no foreign key to objects: an override may be set before the device
 * ever connected, and it applies when the device shows up.
 */
import type { Clock } from '../core/clock.js';
import type { Database } from './database.js';
import { StatementCache, guard, normalizeHex } from './sql.js';
import type { OidOverride, OverrideMatchKind } from './types.js';

export interface OidOverrideInput {
  readonly matchKind: OverrideMatchKind;
  readonly matchValue: string;
  /** null (or '') when the override applies to the main device itself. */
  readonly relatedOid: string | null;
  readonly overrideOid: string;
}

interface OverrideRow {
  match_kind: OverrideMatchKind;
  match_value: string;
  related_oid: string;
  override_oid: string;
  updated_at: number | null;
}

/** '' in the key column stands for "the main device"; a PRIMARY KEY column cannot hold NULL usefully. */
function relatedKey(relatedOid: string | null | undefined): string {
  return relatedOid ? normalizeHex(relatedOid) : '';
}

export class OidOverridesRepo {
  private readonly clock: Clock;
  private readonly sql: StatementCache;

  constructor(db: Database, clock: Clock) {
    this.clock = clock;
    this.sql = new StatementCache(db);
  }

  /** Upsert; all identifiers are stored upper-case, compared exactly (leading zeros count). */
  set(input: OidOverrideInput): void {
    guard('save OID override', () =>
      this.sql
        .get(
          `INSERT INTO oid_overrides (match_kind, match_value, related_oid, override_oid, updated_at)
           VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (match_kind, match_value, related_oid) DO UPDATE SET
             override_oid = excluded.override_oid, updated_at = excluded.updated_at`,
        )
        .run(
          input.matchKind,
          normalizeHex(input.matchValue),
          relatedKey(input.relatedOid),
          normalizeHex(input.overrideOid),
          this.clock.now(),
        ),
    );
  }

  get(matchKind: OverrideMatchKind, matchValue: string, relatedOid: string | null): OidOverride | null {
    return guard('read OID override', () => {
      const row = this.sql
        .get('SELECT * FROM oid_overrides WHERE match_kind = ? AND match_value = ? AND related_oid = ?')
        .get(matchKind, normalizeHex(matchValue), relatedKey(relatedOid)) as OverrideRow | undefined;
      return row ? toOverride(row) : null;
    });
  }

  /**
   * The override OID for a device (relatedOid null) or for one of its related objects. A UID
   * match wins over an OID match, as the UID wins in the request (management API, PUT
   * /api/oid-override rules 1-2). Related and main overrides never stand in for each other.
   */
  resolve(device: { uid?: string | null; account?: string | null }, relatedOid: string | null): string | null {
    const uid = device.uid ? normalizeHex(device.uid) : null;
    const account = device.account ? normalizeHex(device.account) : null;
    if (uid === null && account === null) return null;
    return guard('resolve OID override', () => {
      const row = this.sql
        .get(
          `SELECT override_oid FROM oid_overrides
           WHERE related_oid = @related
             AND ((match_kind = 'uid' AND match_value = @uid) OR (match_kind = 'oid' AND match_value = @account))
           ORDER BY match_kind = 'uid' DESC
           LIMIT 1`,
        )
        .get({ related: relatedKey(relatedOid), uid, account }) as { override_oid: string } | undefined;
      return row?.override_oid ?? null;
    });
  }

  list(): OidOverride[] {
    return guard('list OID overrides', () =>
      (
        this.sql.get('SELECT * FROM oid_overrides ORDER BY match_kind, match_value, related_oid').all() as OverrideRow[]
      ).map(toOverride),
    );
  }
}

function toOverride(row: OverrideRow): OidOverride {
  return {
    matchKind: row.match_kind,
    matchValue: row.match_value,
    relatedOid: row.related_oid === '' ? null : row.related_oid,
    overrideOid: row.override_oid,
    updatedAt: row.updated_at,
  };
}
