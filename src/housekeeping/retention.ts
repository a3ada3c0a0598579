/**
 * One retention pass (docs/retention.md): old events, lost objects, surplus session rows.
 *
 * - Events received more than `remove_events_age` days ago are deleted in bounded batches,
 *   yielding to the event loop between batches so receivers keep being served, and never one an
 *   output (or the MySQL sync) has not delivered yet: `keepAfterId` is the lowest of their cursors.
 * - Objects in state `lost` not heard from for `remove_lost_objects_age` days are deleted (their
 *   related objects and session rows cascade), and so are objects heard only once, more than
 *   SEEN_ONCE_AGE_MS ago (no UID, nothing heard since their creation: a stranger's fresh account,
 *   docs/security.md "Admission"; a real panel reports again within a day and is never one of them).
 * - Every object keeps its newest `device_session_log_count` sessions. The ingest trims a device
 *   when it opens a session; the daily pass also catches a lowered setting and devices that have
 *   not connected since.
 *
 * Every delete is a command to the store's one writer (docs/store.md §One writer), awaited; the
 * event loop turns while the writer deletes.
 */
import type { Settings } from '../settings/schema.js';
import type { OutputCursor } from '../store/output-cursors.js';
import type { ObjectRecord } from '../store/types.js';

export const DAY_MS = 86_400_000;
/** Objects heard once and not since are deleted after this long. */
export const SEEN_ONCE_AGE_MS = DAY_MS;
export const EVENT_BATCH_LIMIT = 5000;
/** Upper bound of batches in one pass (50 million events): the loop always ends. */
export const MAX_EVENT_BATCHES = 10_000;
const SESSION_TRIM_CHUNK = 500;

/** The slice of the store (src/store/store.ts) a pass uses: reads, and the writes it sends. */
export interface RetentionStore {
  readonly objects: { all(): ObjectRecord[] };
  readonly cursors: { all(): OutputCursor[] };
  readonly write: {
    readonly events: {
      deleteOlderThan(cutoff: number, options: { keepAfterId?: number; batchLimit?: number }): Promise<number>;
    };
    readonly objects: {
      deleteLostOlderThan(cutoff: number): Promise<number>;
      deleteSeenOnceBefore(cutoff: number): Promise<number>;
    };
    readonly sessions: { trim(objectId: number, keep: number): Promise<number> };
  };
}

/** What a pass needs from the settings, read at the start of each pass. */
export interface RetentionPolicy {
  readonly removeEventsAgeDays: number;
  readonly removeLostObjectsAgeDays: number;
  readonly sessionLogCount: number;
  /** Ids of the enabled outputs: each holds back events after its cursor. */
  readonly outputIds: readonly number[];
  /** Further positions in the journal that must be kept after (the MySQL sync cursor), or null. */
  readonly extraFloors: readonly (number | null)[];
}

export interface RetentionReport {
  readonly eventsDeleted: number;
  readonly objectsDeleted: number;
  readonly sessionsTrimmed: number;
  /** The keepAfterId used; null when nothing held events back. */
  readonly keepAfterId: number | null;
  /** True when stopped before the end (shutdown). */
  readonly interrupted: boolean;
}

/** The policy of the current settings: only enabled outputs hold events back (docs/retention.md). */
export function retentionPolicy(settings: Settings, extraFloors: readonly (number | null)[] = []): RetentionPolicy {
  return {
    removeEventsAgeDays: settings.database.remove_events_age,
    removeLostObjectsAgeDays: settings.database.remove_lost_objects_age,
    sessionLogCount: settings.database.device_session_log_count,
    outputIds: settings.outputs.filter((o) => o.enabled).map((o) => o.id),
    extraFloors,
  };
}

/**
 * The highest event id that may be deleted: the lowest cursor of the enabled outputs and of the
 * extra floors. An enabled output without a stored cursor holds everything (its cursor is 0,
 * "from the start of the journal", as OutputCursors.get reads it). Null when nothing holds back.
 */
export function undeliveredFloor(
  outputIds: readonly number[],
  cursors: readonly OutputCursor[],
  extra: readonly (number | null)[],
): number | null {
  const byId = new Map(cursors.map((c) => [c.outputId, c.lastEventId]));
  const floors = [...outputIds.map((id) => byId.get(id) ?? 0), ...extra.filter((f): f is number => f !== null)];
  return floors.length === 0 ? null : Math.min(...floors);
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export async function runRetention(
  store: RetentionStore,
  policy: RetentionPolicy,
  now: number,
  stopped: () => boolean = () => false,
): Promise<RetentionReport> {
  const keepAfterId = undeliveredFloor(policy.outputIds, store.cursors.all(), policy.extraFloors);
  const eventCutoff = now - policy.removeEventsAgeDays * DAY_MS;
  let eventsDeleted = 0;
  for (let batch = 0; batch < MAX_EVENT_BATCHES; batch++) {
    if (stopped()) return { eventsDeleted, objectsDeleted: 0, sessionsTrimmed: 0, keepAfterId, interrupted: true };
    const deleted = await store.write.events.deleteOlderThan(eventCutoff, {
      keepAfterId: keepAfterId ?? undefined,
      batchLimit: EVENT_BATCH_LIMIT,
    });
    eventsDeleted += deleted;
    if (deleted < EVENT_BATCH_LIMIT) break;
    await yieldToLoop();
  }

  const objectsDeleted =
    (await store.write.objects.deleteLostOlderThan(now - policy.removeLostObjectsAgeDays * DAY_MS)) +
    (await store.write.objects.deleteSeenOnceBefore(now - SEEN_ONCE_AGE_MS));

  let sessionsTrimmed = 0;
  const ids = store.objects.all().map((o) => o.id);
  for (let i = 0; i < ids.length; i += SESSION_TRIM_CHUNK) {
    if (stopped()) return { eventsDeleted, objectsDeleted, sessionsTrimmed, keepAfterId, interrupted: true };
    // A chunk's trims go out together: the writer runs them in order, one answer each.
    const trimmed = await Promise.all(
      ids.slice(i, i + SESSION_TRIM_CHUNK).map((id) => store.write.sessions.trim(id, policy.sessionLogCount)),
    );
    for (const n of trimmed) sessionsTrimmed += n;
    await yieldToLoop();
  }
  return { eventsDeleted, objectsDeleted, sessionsTrimmed, keepAfterId, interrupted: false };
}
