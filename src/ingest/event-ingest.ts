/**
 * Group commit (docs/receivers.md §Group commit). Every receiver connection submits its ACKable
 * frames here; everything queued during one turn of the event loop, from all connections, is
 * written in ONE transaction on the next setImmediate (at once when the queue is large): journal
 * rows, objects registered on first sight, last_seen / last_ping / remote address, session rows.
 * Each submit() resolves only after COMMIT (with synchronous=FULL: after the fsync), so a
 * receiver that writes its ACK on resolution never ACKs an event that is not durably stored
 * (docs/store.md §Durability). If the transaction fails, every submit of that batch rejects: the
 * devices get no ACK and retransmit.
 */
import type { TypedBus } from '../core/bus.js';
import { describeError } from '../core/errors.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { NewEvent, ObjectRecord, StoredEventRef } from '../store/types.js';
import { journalRow } from './journal-row.js';
import { ObjectDirectory, type ObjectsPort } from './object-directory.js';
import type { FrameItem, HelloItem, IngestEvents, IngestItem, IngestResult, IngestStats, LinkedDevice, SessionLog } from './types.js';

/** The slice of the store (src/store/store.ts) the ingest writes through. */
export interface IngestStore {
  readonly events: { append(events: readonly NewEvent[]): StoredEventRef[] };
  readonly objects: ObjectsPort;
  readonly sessions: {
    open(objectId: number, at: number, remoteAddress: string | null): number;
    close(id: number, at: number, counters: { events: number; bytesIn: number; bytesOut: number }): void;
    trim(objectId: number, keep: number): number;
  };
  transaction<T>(fn: () => T): T;
}

export interface EventIngestDeps {
  readonly store: IngestStore;
  readonly logger: Logger;
  readonly bus?: TypedBus<IngestEvents>;
  /** The store's health entry is set 'failed' while transactions fail, 'ok' when one succeeds again. */
  readonly health?: HealthRegistry;
  /** database.device_session_log_count (1..25), read whenever a session row is opened. */
  readonly sessionLogCount?: () => number;
  /** Items queued before a flush is forced at once instead of on the next setImmediate. */
  readonly maxBatchItems?: number;
  /**
   * Tracker hook (docs/supervision.md §Ignorable startup events): the flags a device event row is
   * journaled with, decided before COMMIT so an output can never see the row unflagged.
   */
  readonly eventFlags?: (row: NewEvent, item: FrameItem) => number;
}

export const DEFAULT_MAX_BATCH_ITEMS = 2000;
const DEFAULT_SESSION_LOG_COUNT = 10;
const NO_IDS: readonly number[] = Object.freeze([]);
const PING = { ping: true };
const NO_PING = { ping: false };

interface Mark {
  objectId: number | null;
  start: number;
  count: number;
  object?: ObjectRecord;
}

type Op =
  | { kind: 'items'; items: readonly IngestItem[]; marks: Mark[]; resolve: (r: IngestResult[]) => void; reject: (e: unknown) => void }
  | { kind: 'close'; session: SessionLog; at: number };

interface Seen {
  at: number;
  ping: boolean;
  remote: string;
}

/** What one flush did inside its transaction, kept to publish after COMMIT or undo after ROLLBACK. */
class FlushWork {
  readonly rows: NewEvent[] = [];
  refs: StoredEventRef[] = [];
  readonly registered: ObjectRecord[] = [];
  readonly seen = new Map<number, Seen>();
  readonly opened: SessionLog[] = [];
  readonly counted: Array<[SessionLog, number]> = [];
  readonly adopted: LinkedDevice[] = [];
  items = 0;
  linkTests = 0;
}

export class EventIngest {
  readonly stats: IngestStats = { flushes: 0, failedFlushes: 0, items: 0, events: 0, linkTests: 0, objectsRegistered: 0, largestFlush: 0 };
  private readonly deps: EventIngestDeps;
  private readonly directory: ObjectDirectory;
  private readonly maxBatchItems: number;
  private queue: Op[] = [];
  private queuedItems = 0;
  private scheduled: NodeJS.Immediate | null = null;
  private failing = false;
  private readonly flushSoon = (): void => {
    this.scheduled = null;
    this.flush();
  };

  constructor(deps: EventIngestDeps) {
    this.deps = deps;
    this.directory = new ObjectDirectory(() => deps.store.objects);
    this.maxBatchItems = deps.maxBatchItems ?? DEFAULT_MAX_BATCH_ITEMS;
  }

  /** Queues items for the next group commit; resolves after COMMIT with one result per item, in order. */
  submit(items: readonly IngestItem[]): Promise<IngestResult[]> {
    if (items.length === 0) return Promise.resolve([]);
    const promise = new Promise<IngestResult[]>((resolve, reject) => {
      this.queue.push({ kind: 'items', items, marks: [], resolve, reject });
    });
    this.queuedItems += items.length;
    if (this.queuedItems >= this.maxBatchItems) this.flush();
    else this.schedule();
    return promise;
  }

  /** The connection ended: its session row is closed in the next transaction, after its last frames. */
  closeSession(session: SessionLog, at: number): void {
    session.closed = true;
    this.queue.push({ kind: 'close', session, at });
    this.schedule();
  }

  /** Commits whatever is queued now (receivers call it when they stop). */
  drain(): void {
    if (this.scheduled) {
      clearImmediate(this.scheduled);
      this.scheduled = null;
    }
    this.flush();
  }

  /** Items waiting for the next transaction. */
  get queued(): number {
    return this.queuedItems;
  }

  private schedule(): void {
    if (!this.scheduled) this.scheduled = setImmediate(this.flushSoon);
  }

  private flush(): void {
    const ops = this.queue;
    if (ops.length === 0) return;
    this.queue = [];
    this.queuedItems = 0;
    const work = new FlushWork();
    try {
      this.deps.store.transaction(() => this.write(ops, work));
    } catch (err) {
      this.rollback(ops, work, err);
      return;
    }
    this.publish(ops, work);
  }

  private write(ops: readonly Op[], work: FlushWork): void {
    const store = this.deps.store;
    for (const op of ops) {
      if (op.kind === 'close') {
        const s = op.session;
        if (s.id !== null) store.sessions.close(s.id, op.at, { events: s.events, bytesIn: s.bytesIn, bytesOut: s.bytesOut });
        continue;
      }
      for (const item of op.items) op.marks.push(item.kind === 'frame' ? this.frame(item, work) : this.hello(item, work));
      work.items += op.items.length;
    }
    if (work.rows.length > 0) work.refs = store.events.append(work.rows);
    const objects = store.objects;
    for (const [id, seen] of work.seen) objects.markSeen(id, seen.at, seen.remote, seen.ping ? PING : NO_PING);
  }

  private frame(item: FrameItem, work: FlushWork): Mark {
    const account = item.events.length > 0 ? item.events[0]!.account : item.account;
    const device = item.device;
    let objectId: number | null = null;
    if (device) {
      objectId = device.objectId;
      if (account !== null && !sameAccount(device.account, account)) {
        if (device.account === '') {
          // The device's HELLO had no account: its first message tells it (docs/receivers.md §Objects).
          this.deps.store.objects.upsertMain({ uid: device.uid, account, receiverId: item.receiver.id, receiverKind: item.receiver.kind, at: item.receivedAt });
          device.account = account;
          work.adopted.push(device);
        } else {
          // Another account on a device's own connection: a related object it carries (docs/store.md §Identity).
          this.see(work, device.objectId, item, false);
          objectId = this.directory.relatedOf(device.objectId, account, item, work.registered);
        }
      }
    } else if (account !== null) {
      objectId = this.directory.main(account, item, work.registered);
    }
    if (objectId !== null) {
      this.see(work, objectId, item, item.linkTest);
      if (item.session) this.openSession(item.session, device ? device.objectId : objectId, work);
    }
    if (item.linkTest) work.linkTests++;
    const start = work.rows.length;
    const flagsOf = this.deps.eventFlags;
    for (const event of item.events) {
      const row = journalRow(event, item, objectId);
      const flags = flagsOf ? flagsOf(row, item) : 0;
      work.rows.push(flags === 0 ? row : { ...row, flags });
    }
    if (item.session && item.events.length > 0) {
      item.session.events += item.events.length;
      work.counted.push([item.session, item.events.length]);
    }
    return { objectId, start, count: item.events.length };
  }

  private hello(item: HelloItem, work: FlushWork): Mark {
    const objects = this.deps.store.objects;
    const uid = item.uid.toUpperCase();
    const prior = objects.findByUid(uid);
    const account = item.account ?? prior?.account ?? '';
    const adopts = !prior && account !== '' && objects.findByAccount(account, item.receiver.id).some((o) => o.uid === null);
    const object = objects.upsertMain({
      uid, account, receiverId: item.receiver.id, receiverKind: item.receiver.kind, transport: item.transport,
      remoteAddress: item.remoteAddress, hwId: item.hwId ?? null, firmware: item.firmware ?? null, at: item.receivedAt,
    });
    if (!prior && !adopts) work.registered.push(object);
    this.directory.noteMain(object, item.receivedAt);
    this.see(work, object.id, item, false);
    if (item.session) this.openSession(item.session, object.id, work);
    return { objectId: object.id, start: 0, count: 0, object };
  }

  private openSession(session: SessionLog, objectId: number, work: FlushWork): void {
    if (session.objectId !== null) return;
    const sessions = this.deps.store.sessions;
    session.id = sessions.open(objectId, session.connectedAt, session.remoteAddress);
    session.objectId = objectId;
    sessions.trim(objectId, this.deps.sessionLogCount?.() ?? DEFAULT_SESSION_LOG_COUNT);
    work.opened.push(session);
  }

  private see(work: FlushWork, objectId: number, item: IngestItem, ping: boolean): void {
    const seen = work.seen.get(objectId);
    if (!seen) {
      work.seen.set(objectId, { at: item.receivedAt, ping, remote: item.remoteAddress });
      return;
    }
    if (item.receivedAt > seen.at) seen.at = item.receivedAt;
    if (ping) seen.ping = true;
    seen.remote = item.remoteAddress;
  }

  /** After COMMIT: counters, health, bus, then the waiting submits resolve (their ACKs go out). */
  private publish(ops: readonly Op[], work: FlushWork): void {
    const stats = this.stats;
    stats.flushes++;
    stats.items += work.items;
    stats.events += work.rows.length;
    stats.linkTests += work.linkTests;
    stats.objectsRegistered += work.registered.length;
    if (work.items > stats.largestFlush) stats.largestFlush = work.items;
    if (this.failing) {
      this.failing = false;
      this.deps.logger.info('journal writes succeed again');
      this.deps.health?.report('store', 'store', 'ok', null);
    }
    const bus = this.deps.bus;
    if (bus) {
      for (const object of work.registered) bus.emit('object-registered', { object });
      for (let i = 0; i < work.rows.length; i++) bus.emit('event-stored', { id: work.refs[i]!.id, event: work.rows[i]! });
      for (const [objectId, seen] of work.seen) {
        bus.emit('object-seen', { objectId, at: seen.at, ping: seen.ping, remoteAddress: seen.remote });
      }
    }
    const refs = work.refs;
    for (const op of ops) {
      if (op.kind === 'close') continue;
      const results: IngestResult[] = new Array(op.marks.length);
      for (let i = 0; i < op.marks.length; i++) {
        const mark = op.marks[i]!;
        let ids = NO_IDS;
        if (mark.count > 0) {
          const list: number[] = new Array(mark.count);
          for (let k = 0; k < mark.count; k++) list[k] = refs[mark.start + k]!.id;
          ids = list;
        }
        results[i] = mark.object ? { objectId: mark.objectId, eventIds: ids, object: mark.object } : { objectId: mark.objectId, eventIds: ids };
      }
      op.resolve(results);
    }
  }

  /** After ROLLBACK: undo what the batch changed in memory, report the store failed, reject every submit. */
  private rollback(ops: readonly Op[], work: FlushWork, err: unknown): void {
    // The cache may name objects created inside the rolled-back transaction.
    this.directory.clear();
    for (const session of work.opened) {
      session.id = null;
      session.objectId = null;
    }
    for (const [session, n] of work.counted) session.events -= n;
    for (const device of work.adopted) device.account = '';
    this.stats.failedFlushes++;
    const message = describeError(err);
    if (!this.failing) {
      this.failing = true;
      this.deps.logger.error('journal write failed: devices get no ACK and will retransmit', { items: work.items, error: message });
      this.deps.health?.report('store', 'store', 'failed', `journal write failed: ${message}`);
    }
    for (const op of ops) if (op.kind === 'items') op.reject(err);
  }
}

function sameAccount(a: string, b: string): boolean {
  return a === b || a.toUpperCase() === b.toUpperCase();
}
