/**
 * Migration 2: the journal keeps only indexes whose new entries land at the right-hand end of
 * their b-tree (docs/store.md §Indexes). `events_by_account (account, id)` and
 * `events_by_object (object_id, id)` put each device's new rows on its own leaf page, so every
 * group commit dirtied (and wrote to the WAL, and fsynced) about one page per device per index:
 * measured, they made the store part of ingest 2-3x dearer (docs/benchmarks.md §Ingest). Queries by
 * account scan newest-first with a bounded budget instead (EventJournal.query).
 * `events_by_received_at` goes too: received_at does not decrease along ids (one writer stamps
 * them in commit order), so a time bound is a binary search over the primary key; one b-tree
 * fewer per row is about 10% of the journal insert. `events_by_receiver` and `events_by_code`
 * go as well: together another ~3.5 µs per stored event in the writer (12.7 -> 9.2 µs, store
 * microbench), and every API filter is a bounded newest-first scan of the primary key anyway.
 */
export const SCHEMA_V2 = `
DROP INDEX IF EXISTS events_by_account;
DROP INDEX IF EXISTS events_by_object;
DROP INDEX IF EXISTS events_by_received_at;
DROP INDEX IF EXISTS events_by_receiver;
DROP INDEX IF EXISTS events_by_code;
`;
