/**
 * Mirror schema version 3: each installation's system update, as the box reports it, in `installations`
 * (docs/mysql-sync.md §Installations, docs/updates.md "Watching a rollout"): the slot it runs, the last
 * install (version, slot, outcome, reason, when) and what its update channel says. An operator watches a
 * rollout there and stops a wave that goes wrong. Columns are added only where missing, so a migration
 * cut half-way runs again.
 */
import type { RemoteDb } from './remote-db.js';

const UPDATE_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['slot', 'VARCHAR(1) NULL'],
  ['update_version', 'VARCHAR(64) NULL'],
  ['update_slot', 'VARCHAR(1) NULL'],
  ['update_outcome', 'VARCHAR(16) NULL'],
  ['update_reason', 'VARCHAR(1024) NULL'],
  ['update_installed_at', 'DATETIME(3) NULL'],
  ['channel', 'VARCHAR(1024) NULL'],
  ['update_reported_at', 'DATETIME(3) NULL'],
];

/**
 * One ALTER for every missing column: on Galera each DDL is a cluster-wide total-order event, and
 * several gateways migrating a fresh mirror at once each add their own; fewer of them keep the
 * cluster's writes flowing (a replicated DDL waits for every node).
 */
export async function addUpdateColumns(db: RemoteDb): Promise<void> {
  const present = new Set(
    (
      (await db.query(
        "SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'installations'",
      )) as Array<{ name: string }>
    ).map((row) => row.name.toLowerCase()),
  );
  const missing = UPDATE_COLUMNS.filter(([column]) => !present.has(column));
  if (missing.length === 0) return;
  await db.query(
    `ALTER TABLE installations ${missing.map(([column, type]) => `ADD COLUMN ${column} ${type}`).join(', ')}`,
  );
}

/** What a box reports of its system updates (src/update: the record, the booted slot, the channel). */
export interface FleetReport {
  readonly slot: string | null;
  readonly update: {
    readonly version: string;
    readonly slot: string;
    readonly outcome: string;
    readonly reason: string | null;
    readonly installedAt: string;
  } | null;
  /** The channel's state in one line: its error, or what it decided. */
  readonly channel: string | null;
}

export async function recordFleetReport(
  db: RemoteDb,
  installation: string,
  report: FleetReport,
  at: Date,
): Promise<void> {
  const installedAt = report.update ? new Date(report.update.installedAt) : null;
  await db.query(
    `UPDATE installations SET slot = ?, update_version = ?, update_slot = ?, update_outcome = ?, update_reason = ?,
       update_installed_at = ?, channel = ?, update_reported_at = ? WHERE installation = ?`,
    [
      report.slot,
      report.update?.version ?? null,
      report.update?.slot ?? null,
      report.update?.outcome ?? null,
      report.update?.reason?.slice(0, 1024) ?? null,
      installedAt && Number.isFinite(installedAt.getTime()) ? installedAt : null,
      report.channel?.slice(0, 1024) ?? null,
      at,
      installation,
    ],
  );
}
