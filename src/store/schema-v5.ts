/**
 * Migration 5: the sighting columns get their own narrow table (docs/store.md §Sightings).
 *
 * `last_seen` / `last_ping` change whenever a device is heard; everything else of an objects row
 * changes rarely. In the wide objects row (~120 bytes, ~9 rows per 1 KiB page) the writer's
 * sightings sweep (every 10 s, src/writer/seen-log.ts) dirtied most of the table's pages, plus
 * the pages of `objects_lost (connection_state, last_seen)`, whose entry moved with every new
 * last_seen: 122-142 WAL frames per sweep at a site of 1,000 devices with a link test every 60 s,
 * each written again by the next checkpoint (docs/benchmarks.md §Sightings sweep model). In
 * `object_sightings` a row is ~20 bytes (24 pages for 1,000 objects): the same sweep writes 23
 * frames, none of them a page of `objects`.
 *
 * `remote_address` stays in objects: it changes only when a device reconnects from another
 * address, and markSeen writes it only then. `objects_lost` becomes a partial index of the lost
 * objects only (retention's query); the state of an object changes when it is lost or found,
 * rarely, and its last_seen is no longer in the index.
 */
export const SCHEMA_V5 = `
CREATE TABLE object_sightings (
  object_id INTEGER PRIMARY KEY REFERENCES objects(id) ON DELETE CASCADE,
  last_seen INTEGER NOT NULL,
  last_ping INTEGER
);
INSERT INTO object_sightings (object_id, last_seen, last_ping) SELECT id, last_seen, last_ping FROM objects;
DROP INDEX objects_lost;
ALTER TABLE objects DROP COLUMN last_seen;
ALTER TABLE objects DROP COLUMN last_ping;
CREATE INDEX objects_lost ON objects(connection_state) WHERE connection_state = 'lost';
`;
