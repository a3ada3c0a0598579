/**
 * Which journal events an output takes (settings `outputs[].filters`). An event that is not taken is still passed
 * by the cursor: the filter decides once, in journal order, and a skipped event is never looked at again.
 */
import { EVENT_FLAG_IGNORABLE_STARTUP } from '../store/types.js';
import type { StoredEvent } from '../core/event-row.js';

export interface FilterSettings {
  /** Receiver ids; empty = every receiver. */
  readonly receivers: readonly number[];
  /** Event classes; empty = every class. */
  readonly event_classes: readonly string[];
}

/** Null when the output takes the event, else why not (for debug logs). */
export type EventFilter = (event: StoredEvent) => string | null;

export function createEventFilter(filters: FilterSettings): EventFilter {
  const receivers = new Set(filters.receivers);
  const classes = new Set(filters.event_classes);
  return (event) => {
    // Journaled for the record, never forwarded (issue 4; docs/store.md §Events).
    if ((event.flags & EVENT_FLAG_IGNORABLE_STARTUP) !== 0) return 'ignorable startup event';
    // Link tests supervise the device's path to Vigil; the output has its own heartbeat / NULL supervision.
    if (event.protocol === 'NULL') return 'link test message';
    // Events of the gateway itself have no receiver: the receivers filter does not apply to them (decision,
    // docs/outputs.md §Filters); event_classes ("internal") selects them.
    if (receivers.size > 0 && event.receiverId !== null && !receivers.has(event.receiverId))
      return 'receiver not in filters';
    if (classes.size > 0 && !classes.has(event.eventClass)) return 'event class not in filters';
    return null;
  };
}
