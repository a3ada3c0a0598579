/**
 * Internal events go into the same journal as device events and are announced on the same
 * ingest bus (`event-stored`), so outputs wake and forward them exactly like device events
 * (docs/internal-events.md §Journal). They are appended in their own small transaction rather
 * than queued behind device frames: they carry no frame to ACK and no object to register, and a
 * burst of them (a receiver failing with many outputs) must never delay a device's ACK.
 * The append is a command to the store's one writer, which runs it between two batches, never
 * inside one (docs/store.md §One writer); `event-stored` is announced once it committed.
 */
import type { TypedBus } from '../core/bus.js';
import type { IngestEvents } from '../ingest/types.js';
import type { StoredEventRef } from '../store/types.js';
import type { NewEvent } from '../core/event-row.js';
import type { InternalEventJournal } from './recorder.js';

/** The journal's append as a command to the store's one writer (`store.write.events`). */
export interface JournalAppender {
  append(events: readonly NewEvent[]): Promise<StoredEventRef[]>;
}

export function ingestJournal(events: () => JournalAppender, bus?: TypedBus<IngestEvents>): InternalEventJournal {
  return {
    append: async (batch) => {
      const refs = await events().append(batch);
      if (bus) for (let i = 0; i < refs.length; i++) bus.emit('event-stored', { id: refs[i]!.id, event: batch[i]! });
      return refs.map((r) => r.id);
    },
  };
}
