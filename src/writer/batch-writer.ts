/**
 * The database half of the group commit (docs/receivers.md §Group commit): applies one batch in
 * ONE transaction — journal rows, objects registered or adopted on first sight, related objects,
 * last_seen / last_ping (throttled, src/writer/seen-log.ts), session rows — and returns what it
 * did. It is the one place that decides which object a message belongs to, so the rows' ignorable
 * startup flag (docs/supervision.md), which depends on the object for datagrams, is decided here
 * too, inside the same transaction. It runs in the writer thread (src/writer/writer-thread.ts), on
 * the thread's own connection.
 *
 * It keeps what it needs to answer without a SELECT on the hot path: the ObjectDirectory, the
 * session rows it opened (by session key) and the accounts devices adopted. Everything a batch
 * added there is undone when its transaction rolls back.
 */
import { insertParams, setWireField, wireField, type EventInsertParams } from '../store/journal-columns.js';
import type { ObjectRecord } from '../store/types.js';
import { StartupEventClassifier, type StartupRules, type StartupRow } from './startup-events.js';
import { ObjectDirectory, type ObjectsPort, type Sighting } from './object-directory.js';
import { SeenLog } from './seen-log.js';
import { collectSightings } from './sightings.js';
import type { WireBatch, WireFrame, WireHello, WireOp, WireResult, WireRow, WireSession } from './wire.js';

/** The writer thread's repositories a batch is written through, and its transaction. */
export interface IngestStore {
  readonly events: { appendRows(rows: readonly EventInsertParams[]): number[] };
  readonly objects: ObjectsPort;
  readonly sessions: {
    open(objectId: number, at: number, remoteAddress: string | null): number;
    close(id: number, at: number, counters: { events: number; bytesIn: number; bytesOut: number }): void;
    trim(objectId: number, keep: number): number;
  };
  transaction<T>(fn: () => T): T;
}

/** What one batch changed in the writer's memory, to publish or to undo. */
class Work {
  readonly rows: EventInsertParams[] = [];
  readonly objectIds: Array<number | null> = [];
  readonly helloObjects: ObjectRecord[] = [];
  readonly registered: ObjectRecord[] = [];
  readonly opened: Array<[number, number, number]> = [];
  readonly adopted: Array<[number, string]> = [];
  readonly flagged: Array<[number, number]> = [];
  ids: number[] = [];
}

export class BatchWriter {
  private readonly store: IngestStore;
  private readonly directory: ObjectDirectory;
  private readonly seenLog: SeenLog;
  /** Session key -> [row id, object id] of rows open in the store. */
  private readonly sessions = new Map<number, [number, number]>();
  /** Device object id -> the account its first message told (until the main thread knows it). */
  private readonly adopted = new Map<number, string>();
  /** Ignorable startup events: made with the first batch that carries rules, for this writer's life. */
  private startup: StartupEventClassifier | null = null;
  private rules: StartupRules | null = null;

  constructor(store: IngestStore, seenLog: SeenLog = new SeenLog()) {
    this.store = store;
    this.directory = new ObjectDirectory(() => store.objects);
    this.seenLog = seenLog;
  }

  /** Commits the batch or throws (then nothing of it is stored and nothing of it is remembered). */
  write(batch: WireBatch): WireResult {
    const work = new Work();
    try {
      this.store.transaction(() => this.apply(batch, work));
    } catch (err) {
      this.undo(work);
      throw err;
    }
    this.seenLog.committed();
    return {
      objectIds: work.objectIds,
      eventIds: compactIds(work.ids),
      eventCount: work.ids.length,
      helloObjects: work.helloObjects,
      registered: work.registered,
      opened: work.opened,
      adopted: work.adopted,
      flagged: work.flagged,
    } satisfies WireResult;
  }

  /**
   * Writes the throttled sightings still pending (the writer is stopping), and what `also`
   * writes, in one transaction (the writer thread's mark that every sighting is stored).
   */
  flushSeen(also?: () => void): void {
    if (this.seenLog.pendingCount === 0 && !also) return;
    this.seenTransaction(() => {
      this.seenLog.flush(this.store.objects);
      also?.();
    });
  }

  /** Milliseconds until the sightings sweep is due, null while nothing is pending (the writer thread's timer). */
  seenDueInMs(): number | null {
    return this.seenLog.dueInMs();
  }

  /** The sweep in a commit of its own, when it is due and no batch came to carry it. */
  sweepSeen(): void {
    if (this.seenLog.dueInMs() === 0) this.seenTransaction(() => this.seenLog.sweep(this.store.objects));
  }

  private seenTransaction(fn: () => void): void {
    try {
      this.store.transaction(fn);
    } catch (err) {
      this.seenLog.forget();
      throw err;
    }
    this.seenLog.committed();
  }

  private apply(batch: WireBatch, work: Work): void {
    this.rules = batch.startup;
    if (batch.startup && this.startup === null) {
      const gatewayStartedAt = batch.startup.gatewayStartedAt;
      this.startup = new StartupEventClassifier({ gatewayStartedAt, triplets: () => this.rules?.triplets ?? [] });
    }
    for (const op of batch.ops) this.op(op, batch, work);
    if (work.rows.length > 0) work.ids = this.store.events.appendRows(work.rows);
    this.seenLog.apply(this.store.objects, collectSightings(batch.ops, work.objectIds));
  }

  private op(op: WireOp, batch: WireBatch, work: Work): void {
    if (op.kind === 'close') {
      const id = this.sessions.get(op.session.key)?.[0] ?? op.session.id;
      this.sessions.delete(op.session.key);
      if (id !== null)
        this.store.sessions.close(id, op.at, { events: op.events, bytesIn: op.bytesIn, bytesOut: op.bytesOut });
      return;
    }
    work.objectIds.push(op.kind === 'frame' ? this.frame(op, batch, work) : this.hello(op, batch, work));
  }

  private frame(op: WireFrame, batch: WireBatch, work: Work): number | null {
    const account = op.account;
    const device = op.device;
    const s = sighting(op);
    let objectId: number | null = null;
    if (device) {
      objectId = device.objectId;
      const known = device.account !== '' ? device.account : (this.adopted.get(device.objectId) ?? '');
      if (account !== null && !sameAccount(known, account)) {
        if (known === '') {
          // The device's HELLO had no account: its first message tells it (docs/receivers.md §Objects).
          this.store.objects.upsertMain({
            uid: device.uid,
            account,
            receiverId: op.receiverId,
            receiverKind: op.receiverKind,
            at: op.receivedAt,
          });
          this.adopted.set(device.objectId, account);
          work.adopted.push([device.objectId, account]);
        } else {
          // Another account on a device's own connection: a related object it carries (docs/store.md §Identity).
          objectId = this.directory.relatedOf(device.objectId, account, s, work.registered);
        }
      }
    } else if (account !== null) {
      objectId = this.directory.main(account, s, work.registered);
    }
    if (objectId !== null) {
      if (op.session) this.openSession(op.session, device ? device.objectId : objectId, batch, work);
      // Which DC-09 deviations this object's panel shows (docs/dc09.md §12): written once per new bit.
      if (op.quirks !== 0) this.store.objects.addQuirks(objectId, op.quirks);
    }
    const startup = this.rules && this.startup;
    if (op.rows.length > 0) {
      const raw = Buffer.from(batch.raw.buffer, batch.raw.byteOffset + op.raw[0], op.raw[1]);
      for (const row of op.rows) {
        if (startup) {
          const flags = startup.flagsFor(startupRow(op, row, objectId), op.session ? op.session.connectedAt : null);
          if (flags !== wireField(row, 'flags')) {
            setWireField(row, 'flags', flags);
            work.flagged.push([work.rows.length, flags]);
          }
        }
        work.rows.push(insertParams(op, row, raw, objectId));
      }
    }
    // Every attributed message, link tests included, keeps a datagram device's "session" open.
    if (startup && objectId !== null) startup.seen(objectId, op.receivedAt);
    return objectId;
  }

  private hello(op: WireHello, batch: WireBatch, work: Work): number {
    const objects = this.store.objects;
    const uid = op.uid.toUpperCase();
    const prior = objects.findByUid(uid);
    const account = op.account ?? prior?.account ?? '';
    // Only a device enrolled by this HELLO adopts a plain panel's object (docs/device-link.md §4.4): the
    // main thread let it enrol because the panel's account was free or an installer opened a window.
    const adopts =
      op.adopt && !prior && account !== '' && objects.findByAccount(account, op.receiverId).some((o) => o.uid === null);
    const object = objects.upsertMain({
      uid,
      account,
      receiverId: op.receiverId,
      receiverKind: op.receiverKind,
      transport: op.transport,
      remoteAddress: op.remoteAddress,
      hwId: op.hwId,
      firmware: op.firmware,
      at: op.receivedAt,
      adoptPlain: adopts,
    });
    if (!prior && !adopts) work.registered.push(object);
    this.directory.noteMain(object, op.receivedAt);
    if (op.session) this.openSession(op.session, object.id, batch, work);
    work.helloObjects.push(object);
    return object.id;
  }

  private openSession(session: WireSession, objectId: number, batch: WireBatch, work: Work): void {
    if (session.id !== null || this.sessions.has(session.key)) return;
    const sessions = this.store.sessions;
    const id = sessions.open(objectId, session.connectedAt, session.remoteAddress);
    sessions.trim(objectId, batch.sessionLogCount);
    this.sessions.set(session.key, [id, objectId]);
    work.opened.push([session.key, id, objectId]);
  }

  private undo(work: Work): void {
    // The cache may name objects created inside the rolled-back transaction.
    this.directory.clear();
    this.seenLog.forget();
    for (const [key] of work.opened) this.sessions.delete(key);
    for (const [objectId] of work.adopted) this.adopted.delete(objectId);
  }
}

function startupRow(op: WireFrame, row: WireRow, objectId: number | null): StartupRow {
  return {
    receivedAt: op.receivedAt,
    objectId,
    flags: wireField(row, 'flags') ?? 0,
    protocol: wireField(row, 'protocol') as StartupRow['protocol'],
    code: wireField(row, 'code') ?? null,
    groupNo: wireField(row, 'groupNo') ?? null,
    zoneNo: wireField(row, 'zoneNo') ?? null,
  };
}

function sighting(op: WireFrame | WireHello): Sighting {
  return {
    receiver: { id: op.receiverId, kind: op.receiverKind },
    transport: op.transport,
    remoteAddress: op.remoteAddress,
    receivedAt: op.receivedAt,
  };
}

/** A batch's ids are consecutive (one transaction; EventJournal.appendRows assigns them so): send the first only. */
function compactIds(ids: readonly number[]): number | number[] {
  const n = ids.length;
  if (n === 0) return [];
  return ids[n - 1]! - ids[0]! === n - 1 ? ids[0]! : [...ids];
}

function sameAccount(a: string, b: string): boolean {
  return a === b || a.toUpperCase() === b.toUpperCase();
}
