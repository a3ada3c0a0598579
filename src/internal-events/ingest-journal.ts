/**
 * Internal events go into the same journal as device events and are announced on the same
 * ingest bus (`event-stored`), so outputs wake and forward them exactly like device events
 * (docs/internal-events.md §Journal). They are appended in their own small transaction rather
 * than queued behind device frames: they carry no frame to ACK and no object to register, and a
 * burst of them (a receiver failing with many outputs) must never delay a device's ACK.
 * better-sqlite3 is synchronous, so this append cannot interleave with an ingest transaction.
 */
import type { TypedBus } from '../core/bus.js';
import type { IngestEvents } from '../ingest/types.js';
import type { NewEvent, StoredEventRef } from '../store/types.js';
import type { InternalEventJournal } from './recorder.js';

export interface JournalAppender {
  append(events: readonly NewEvent[]): StoredEventRef[];
}

export function ingestJournal(events: () => JournalAppender, bus?: TypedBus<IngestEvents>): InternalEventJournal {
  return {
    append: async (batch) => {
      const refs = events().append(batch);
      if (bus) for (let i = 0; i < refs.length; i++) bus.emit('event-stored', { id: refs[i]!.id, event: batch[i]! });
      return refs.map((r) => r.id);
    },
  };
}
