/**
 * Migration 1: the schema for the whole product, designed up front even where later work
 * fills it. docs/store.md explains each table, the identity rules and the retention policy.
 * Later migrations change parts of it (never this text: a released migration is not edited);
 * migration 6 drops the journal's AUTOINCREMENT (schema-v6.ts, docs/store.md "Event ids").
 */

/** 'VGIL': marks the file as a Vigil store so a foreign SQLite file is never migrated. */
export const VIGIL_APPLICATION_ID = 0x5647494c;

export const SCHEMA_V1 = `
PRAGMA application_id = ${VIGIL_APPLICATION_ID};

-- One JSON document per settings section; users live in their own table.
-- position keeps the section key order stable across save/load.
CREATE TABLE settings (
  section    TEXT PRIMARY KEY,
  value      TEXT NOT NULL CHECK (json_valid(value)),
  position   INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE users (
  id                INTEGER PRIMARY KEY,
  login             TEXT NOT NULL UNIQUE,
  password_hash     TEXT NOT NULL,
  token_time        INTEGER NOT NULL,
  scopes            TEXT NOT NULL CHECK (json_valid(scopes)),
  visible_receivers TEXT NOT NULL CHECK (json_valid(visible_receivers)),
  position          INTEGER NOT NULL DEFAULT 0
);

-- Privileged scopes (device_control, omit_mpass, restart_services) granted by an administrator;
-- they are not part of the settings document, and go with the user when the user is removed.
CREATE TABLE user_grants (
  user_id    INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  scopes     TEXT NOT NULL CHECK (json_valid(scopes)),
  granted_at INTEGER NOT NULL,
  granted_by TEXT NOT NULL
);

-- AUTOINCREMENT: an id is never reused, so an object id kept in an old event or in the
-- MySQL mirror can never come to mean another device after retention deleted the first.
CREATE TABLE objects (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  account           TEXT NOT NULL,
  uid               TEXT CHECK (uid IS NULL OR (uid <> '' AND uid = upper(uid))),
  hw_id             TEXT,
  firmware          TEXT,
  main_object_id    INTEGER REFERENCES objects(id) ON DELETE CASCADE,
  receiver_id       INTEGER NOT NULL,
  receiver_kind     TEXT NOT NULL CHECK (receiver_kind IN ('tcp', 'udp', 'com', 'modem')),
  transport         TEXT,
  remote_address    TEXT,
  first_seen        INTEGER NOT NULL,
  last_seen         INTEGER NOT NULL,
  last_ping         INTEGER,
  connection_state  TEXT NOT NULL DEFAULT 'online' CHECK (connection_state IN ('online', 'offline', 'lost')),
  supervision_state TEXT,
  link_period_s     INTEGER,
  sms               INTEGER NOT NULL DEFAULT 0 CHECK (sms IN (0, 1)),
  restore_count     INTEGER NOT NULL DEFAULT 0,
  CHECK (main_object_id IS NULL OR uid IS NULL)
);
-- Identity rules (docs/store.md): a main device with a UID is that UID, wherever it connects;
-- a main device without one is its account on the receiver that heard it; a related object
-- is its account within its main device.
CREATE UNIQUE INDEX objects_by_uid ON objects(uid) WHERE uid IS NOT NULL;
CREATE UNIQUE INDEX objects_main_by_account ON objects(receiver_id, account)
  WHERE main_object_id IS NULL AND uid IS NULL;
CREATE UNIQUE INDEX objects_related_by_account ON objects(main_object_id, account)
  WHERE main_object_id IS NOT NULL;
CREATE INDEX objects_by_account ON objects(account);
CREATE INDEX objects_lost ON objects(connection_state, last_seen);

-- No foreign key to objects: an override may be set before the device ever connected.
CREATE TABLE oid_overrides (
  match_kind   TEXT NOT NULL CHECK (match_kind IN ('uid', 'oid')),
  match_value  TEXT NOT NULL,
  related_oid  TEXT NOT NULL DEFAULT '',
  override_oid TEXT NOT NULL,
  updated_at   INTEGER,
  PRIMARY KEY (match_kind, match_value, related_oid)
) WITHOUT ROWID;

-- The journal. AUTOINCREMENT: ids only grow, even after retention emptied the table, because
-- output cursors point into this sequence. No foreign key to objects: the journal is an
-- immutable record and outlives the objects it mentions.
CREATE TABLE events (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  received_at      INTEGER NOT NULL,
  device_time      INTEGER,
  device_time_text TEXT,
  receiver_id      INTEGER,
  receiver_kind    TEXT CHECK (receiver_kind IS NULL OR receiver_kind IN ('tcp', 'udp', 'com', 'modem')),
  transport        TEXT,
  remote_address   TEXT,
  object_id        INTEGER,
  account          TEXT NOT NULL,
  dc09_receiver    TEXT,
  dc09_line        TEXT,
  sequence         TEXT,
  protocol         TEXT NOT NULL,
  encrypted        INTEGER NOT NULL DEFAULT 0 CHECK (encrypted IN (0, 1)),
  event_class      TEXT NOT NULL CHECK (event_class IN ('alarm', 'restore', 'link_test', 'internal', 'other')),
  qualifier        TEXT CHECK (qualifier IS NULL OR qualifier IN ('E', 'R', 'P')),
  code             TEXT,
  group_no         TEXT,
  zone_no          TEXT,
  text             TEXT,
  flags            INTEGER NOT NULL DEFAULT 0,
  raw              BLOB NOT NULL
);
-- Each filter index ends in id so "newest first, before cursor" is an index range scan.
CREATE INDEX events_by_receiver ON events(receiver_id, id);
CREATE INDEX events_by_account ON events(account, id);
CREATE INDEX events_by_code ON events(code, id);
CREATE INDEX events_by_received_at ON events(received_at);
CREATE INDEX events_by_object ON events(object_id, id);

CREATE TABLE output_cursors (
  output_id     INTEGER PRIMARY KEY,
  last_event_id INTEGER NOT NULL,
  updated_at    INTEGER
);

CREATE TABLE object_sessions (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  object_id       INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  connected_at    INTEGER NOT NULL,
  disconnected_at INTEGER,
  remote_address  TEXT,
  events          INTEGER NOT NULL DEFAULT 0,
  bytes_in        INTEGER NOT NULL DEFAULT 0,
  bytes_out       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX object_sessions_by_object ON object_sessions(object_id, id);

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT
) WITHOUT ROWID;
`;
