/** The ingest bus as the one `onEventStored` signal its consumers subscribe to (API live tail, page, outputs). */
import type { TypedBus } from '../core/bus.js';
import type { IngestEvents } from '../ingest/types.js';

/** Calls `listener` with the id of every stored event; returns the unsubscribe. */
export type EventStoredFeed = (listener: (id: number) => void) => () => void;

export function eventStoredFeed(bus: TypedBus<IngestEvents>): EventStoredFeed {
  return (listener) => bus.on('event-stored', ({ id }) => listener(id));
}
