/**
 * Migration 8: the device-link keys (docs/device-link.md §4.4, docs/store.md §Schema).
 *
 * One row per device UID (a UID is one main object, objects_by_uid): the 32-byte key the device
 * proves its identity with, or none while an installer's enrolment window is open. Keyed by the
 * UID rather than the object id so the key outlives retention deleting a long-lost object: a
 * device that comes back must still prove itself. A new table only: older builds ignore it.
 */
export const SCHEMA_V8 = `
CREATE TABLE device_keys (
  uid         TEXT PRIMARY KEY CHECK (uid <> '' AND uid = upper(uid)),
  key         BLOB CHECK (key IS NULL OR length(key) = 32),
  enrol_until INTEGER,
  updated_at  INTEGER NOT NULL
) WITHOUT ROWID;
`;
