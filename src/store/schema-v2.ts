/**
 * Migration 2: the journal keeps only indexes whose new entries land at the right-hand end of
 * their b-tree (docs/store.md §Indexes). `events_by_account (account, id)` and
 * `events_by_object (object_id, id)` put each device's new rows on its own leaf page, so every
 * group commit dirtied (and wrote to the WAL, and fsynced) about one page per device per index:
 * measured, they made the store part of ingest 2-3x dearer (docs/benchmarks.md). Queries by
 * account scan newest-first with a bounded budget instead (EventJournal.query).
 */
export const SCHEMA_V2 = `
DROP INDEX IF EXISTS events_by_account;
DROP INDEX IF EXISTS events_by_object;
`;
