/**
 * Where the status output's changes come from (docs/status-output.md §Sources), wired in
 * src/main.ts without the producers knowing about the output:
 * - the ingest bus: `object-registered` is a new object coming `online`; a NULL link test
 *   (`object-seen` with ping) and a journaled link-test event are `link_test`;
 * - the tracker's transitions: the tracker reports `object_lost` / `object_restored` through the
 *   internal-event raise function, so tapTransitions() wraps that function and mirrors the two
 *   types as `lost` / `restored` (whether or not they are configured to be journaled).
 * Listeners only build a change while a client is connected: no store read otherwise.
 */
import type { TypedBus } from '../core/bus.js';
import type { Clock } from '../core/clock.js';
import type { IngestEvents } from '../ingest/types.js';
import type { RaiseInternalEvent } from '../internal-events/recorder.js';
import type { ObjectRecord } from '../store/types.js';
import type { ConnectionStateName, ObjectStatusKind, StatusChange, StatusObject } from './frame.js';
import type { SnapshotSource } from './status-client.js';

/** The slice of StatusOutput the feed uses. */
export interface StatusSink {
  publish(change: StatusChange): void;
  readonly listening: boolean;
}

export interface ObjectLookup {
  get(id: number): ObjectRecord | null;
}

export function statusObject(record: ObjectRecord, state: ConnectionStateName = record.connectionState): StatusObject {
  return {
    id: record.id,
    account: record.account,
    uid: record.uid,
    receiverId: record.receiverId,
    mainObjectId: record.mainObjectId,
    connectionState: state,
  };
}

/** The store's objects as the snapshot reads them: counted, then in pages by id (ObjectsRepo fits). */
export interface ObjectPages {
  count(): number;
  pageAfter(afterId: number, limit: number): readonly ObjectRecord[];
}

/** The snapshot sent to each client: every object's current state, oldest object first, page by page. */
export function snapshotSource(objects: ObjectPages): SnapshotSource {
  return {
    count: () => objects.count(),
    page: (afterId, limit) => objects.pageAfter(afterId, limit).map((record) => statusObject(record)),
  };
}

function publishFor(
  sink: StatusSink,
  objects: ObjectLookup,
  kind: ObjectStatusKind,
  objectId: number,
  at: number,
  state?: ConnectionStateName,
): void {
  if (!sink.listening) return;
  const record = objects.get(objectId);
  // An object deleted meanwhile has nothing left to show.
  if (record) sink.publish({ kind, at, object: statusObject(record, state) });
}

/** Subscribes the sink to the ingest bus; returns the unsubscribe function. */
export function feedFromIngest(bus: TypedBus<IngestEvents>, sink: StatusSink, objects: ObjectLookup): () => void {
  const offs = [
    bus.on('object-registered', ({ object }) => {
      if (sink.listening) sink.publish({ kind: 'online', at: object.lastSeen, object: statusObject(object, 'online') });
    }),
    bus.on('object-seen', ({ objectId, at, ping }) => {
      if (ping) publishFor(sink, objects, 'link_test', objectId, at);
    }),
    bus.on('event-stored', ({ event }) => {
      if (event.eventClass === 'link_test' && event.objectId != null)
        publishFor(sink, objects, 'link_test', event.objectId, event.receivedAt);
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}

/**
 * Wraps the tracker's raise function: lost / restored transitions also go to the sink. The sink
 * is looked up at each call (`sink()`), so the status output may be rebuilt by a restart.
 */
export function tapTransitions(
  raise: RaiseInternalEvent,
  sink: () => StatusSink | null,
  objects: ObjectLookup,
  clock: Clock,
): RaiseInternalEvent {
  return (type, options = {}) => {
    const target = sink();
    const objectId = options.subject?.objectId;
    if (target && objectId !== undefined && (type === 'object_lost' || type === 'object_restored')) {
      const lost = type === 'object_lost';
      publishFor(
        target,
        objects,
        lost ? 'lost' : 'restored',
        objectId,
        options.at ?? clock.now(),
        lost ? 'lost' : 'online',
      );
    }
    return raise(type, options);
  };
}
