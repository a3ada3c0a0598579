/**
 * Dual-path signals (docs/mysql-sync.md §Dual-path signals). For EN 50136 dual-path grades two
 * boxes receive the same panel's signals; each journals its copy, so the mirror holds one event
 * row per box. The `signals` view folds the copies of one signal into one row.
 *
 * The rule: two events are copies of one signal when account, DC-09 sequence number, device
 * timestamp, event class, qualifier, event code, group and zone are all equal. A DC-09 sequence
 * number wraps at 9999 and a panel may restart it, so the sequence alone is not enough; the
 * device timestamp (the `_` field, SIA DC-09 §5.5.1.8) tells the rounds apart. An event without a
 * sequence number or without a device timestamp cannot be matched safely: it stays a signal of
 * its own (never folded wrongly, at worst listed twice).
 */

const FOLD_COLUMNS = 'e.account, e.sequence, e.device_time, e.event_class, e.qualifier, e.code, e.group_no, e.zone_no';

export const SIGNALS_VIEW = `CREATE OR REPLACE VIEW signals AS
  SELECT ${FOLD_COLUMNS},
    MIN(e.received_at) AS first_received_at,
    SUBSTRING_INDEX(GROUP_CONCAT(e.installation ORDER BY e.received_at, e.installation SEPARATOR ','), ',', 1)
      AS first_installation,
    COUNT(*) AS copies,
    COUNT(DISTINCT e.installation) AS box_count,
    GROUP_CONCAT(DISTINCT e.installation ORDER BY e.installation SEPARATOR ',') AS installations,
    GROUP_CONCAT(DISTINCT COALESCE(i.name, '') ORDER BY e.installation SEPARATOR ',') AS box_names
  FROM events e LEFT JOIN installations i ON i.installation = e.installation
  WHERE e.sequence IS NOT NULL AND e.device_time IS NOT NULL
  GROUP BY ${FOLD_COLUMNS}
  UNION ALL
  SELECT ${FOLD_COLUMNS}, e.received_at, e.installation, 1, 1, e.installation, COALESCE(i.name, '')
  FROM events e LEFT JOIN installations i ON i.installation = e.installation
  WHERE e.sequence IS NULL OR e.device_time IS NULL`;
