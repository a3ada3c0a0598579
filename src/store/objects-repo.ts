/**
 * Devices (main objects) and the related objects whose events they carry.
 *
 * Identity (docs/store.md §Identity): a main device with a UID is that UID wherever it
 * connects; a main device without one is its account on the receiver that heard it; a related
 * object is its account within its main device. Accounts are text, compared exactly.
 */
import { VigilError } from '../core/errors.js';
import type { Database } from './database.js';
import type { LiveSightings } from './live-sightings.js';
import { toRecord, type ObjectRow } from './object-rows.js';
import { StatementCache, checkLimit, guard, normalizeHex, toPage, visibilityClause, type Params } from './sql.js';
import type {
  ConnectionState,
  MainObjectInput,
  ObjectListFilter,
  ObjectRecord,
  Page,
  RelatedObjectInput,
  SupervisionPatch,
} from './types.js';

const HEX = /^[0-9A-F]+$/;

/**
 * Objects with their sighting columns (docs/store.md §Sightings): last_seen / last_ping live in
 * object_sightings, one narrow row per object, so the writer's sightings sweep dirties a few
 * pages instead of the whole objects table. Every object has its row (inserted with it, cascaded
 * away with it); were one missing, the object still reads, as last seen when first seen.
 */
const SELECT_OBJECTS = `SELECT objects.*, coalesce(sightings.last_seen, objects.first_seen) AS last_seen, sightings.last_ping AS last_ping
  FROM objects LEFT JOIN object_sightings AS sightings ON sightings.object_id = objects.id`;

export class ObjectsRepo {
  private readonly db: Database;
  private readonly sql: StatementCache;
  private readonly live: LiveSightings | null;

  /** `live`: the sightings heard but maybe not stored yet, shown by every read (the main thread's). */
  constructor(db: Database, live: LiveSightings | null = null) {
    this.db = db;
    this.sql = new StatementCache(db);
    this.live = live;
  }

  get(id: number): ObjectRecord | null {
    return this.one('read object', `${SELECT_OBJECTS} WHERE id = ?`, id);
  }

  findByUid(uid: string): ObjectRecord | null {
    return this.one('find object by UID', `${SELECT_OBJECTS} WHERE uid = ?`, normalizeHex(uid));
  }

  /** Main devices reporting this account (on one receiver when given), oldest first. */
  findByAccount(account: string, receiverId?: number): ObjectRecord[] {
    const byReceiver = receiverId === undefined ? '' : ' AND receiver_id = @receiverId';
    return this.many(
      'find objects by account',
      `${SELECT_OBJECTS} WHERE main_object_id IS NULL AND account = @account${byReceiver} ORDER BY id`,
      { account, receiverId },
    );
  }

  /**
   * Main devices an OID override keyed by `account` applies to: accounts compared as
   * OidOverridesRepo.resolve compares them (trimmed, upper-case), on every receiver.
   */
  findByOverrideAccount(account: string): ObjectRecord[] {
    return this.many(
      'find objects by override account',
      `${SELECT_OBJECTS} WHERE main_object_id IS NULL AND upper(trim(account)) = @account ORDER BY id`,
      { account: normalizeHex(account) },
    );
  }

  /**
   * Main devices whose UID ENDS WITH the partial UID (upper-case hex compare): the device
   * command endpoints address a device by the tail of its UID. Several rows mean the partial
   * UID is ambiguous; an empty or non-hex partial matches nothing.
   */
  findByPartialUid(partial: string, receiverIds: readonly number[] | null = null): ObjectRecord[] {
    const tail = normalizeHex(partial);
    if (!HEX.test(tail)) return [];
    const where = ['main_object_id IS NULL', 'uid IS NOT NULL', 'substr(uid, -length(@tail)) = @tail'];
    const params: Params = { tail };
    visibilityClause('receiver_id', receiverIds, where, params);
    return this.many(
      'find objects by partial UID',
      `${SELECT_OBJECTS} WHERE ${where.join(' AND ')} ORDER BY id`,
      params,
    );
  }

  findRelated(mainId: number, account: string): ObjectRecord | null {
    return this.one(
      'find related object',
      `${SELECT_OBJECTS} WHERE main_object_id = ? AND account = ?`,
      mainId,
      account,
    );
  }

  relatedOf(mainId: number): ObjectRecord[] {
    return this.many('list related objects', `${SELECT_OBJECTS} WHERE main_object_id = @mainId ORDER BY id`, {
      mainId,
    });
  }

  /**
   * Records a main device seen at `input.at`. With a UID: the row with that UID, else a
   * UID-less row for the same receiver and account (the device is adopting it: its first
   * events arrived before it identified itself), else a new row. Without a UID: the UID-less
   * row for (receiver, account), else a new row.
   */
  upsertMain(input: MainObjectInput): ObjectRecord {
    const uid = input.uid ? normalizeHex(input.uid) : null;
    const run = this.db.transaction((): number => {
      const byUid = uid !== null ? this.findByUid(uid) : null;
      const existing =
        byUid ??
        (uid !== null && input.adoptPlain === false
          ? null
          : this.one(
              'find object by account',
              `${SELECT_OBJECTS} WHERE main_object_id IS NULL AND uid IS NULL AND receiver_id = ? AND account = ?`,
              input.receiverId,
              input.account,
            ));
      const params = {
        uid,
        account: input.account,
        receiverId: input.receiverId,
        receiverKind: input.receiverKind,
        transport: input.transport ?? null,
        remote: input.remoteAddress ?? null,
        hwId: input.hwId ?? null,
        firmware: input.firmware ?? null,
        sms: input.sms === undefined ? null : Number(input.sms),
        at: input.at,
      };
      if (existing) {
        this.sql
          .get(
            `UPDATE objects SET uid = coalesce(@uid, uid), account = @account, receiver_id = @receiverId,
               receiver_kind = @receiverKind, transport = coalesce(@transport, transport),
               remote_address = coalesce(@remote, remote_address), hw_id = coalesce(@hwId, hw_id),
               firmware = coalesce(@firmware, firmware), sms = coalesce(@sms, sms)
             WHERE id = @id`,
          )
          .run({ ...params, id: existing.id });
        this.seenAt(existing.id, input.at, false);
        return existing.id;
      }
      const result = this.sql
        .get(
          `INSERT INTO objects (account, uid, hw_id, firmware, receiver_id, receiver_kind, transport, remote_address,
             first_seen, sms)
           VALUES (@account, @uid, @hwId, @firmware, @receiverId, @receiverKind, @transport, @remote, @at,
             coalesce(@sms, 0))`,
        )
        .run(params);
      return this.addSightings(Number(result.lastInsertRowid), input.at);
    });
    return this.reread(guard('save main object', () => run.immediate()));
  }

  /** Records a related object carried by main device `mainId`; it inherits the main's receiver. */
  upsertRelated(mainId: number, account: string, input: RelatedObjectInput): ObjectRecord {
    const run = this.db.transaction((): number => {
      const main = this.get(mainId);
      if (!main || main.mainObjectId !== null) {
        throw new VigilError('NOT_FOUND', `no main object with id ${mainId}`);
      }
      const existing = this.findRelated(mainId, account);
      const params = {
        mainId,
        account,
        hwId: input.hwId ?? null,
        firmware: input.firmware ?? null,
        remote: input.remoteAddress ?? main.remoteAddress,
        at: input.at,
      };
      if (existing) {
        this.sql
          .get(
            `UPDATE objects SET hw_id = coalesce(@hwId, hw_id), firmware = coalesce(@firmware, firmware),
               remote_address = coalesce(@remote, remote_address),
               receiver_id = m.receiver_id, receiver_kind = m.receiver_kind, transport = m.transport
             FROM (SELECT receiver_id, receiver_kind, transport FROM objects WHERE id = @mainId) AS m
             WHERE objects.id = @id`,
          )
          .run({ ...params, id: existing.id });
        this.seenAt(existing.id, input.at, false);
        return existing.id;
      }
      const result = this.sql
        .get(
          `INSERT INTO objects (account, hw_id, firmware, main_object_id, receiver_id, receiver_kind, transport,
             remote_address, first_seen)
           SELECT @account, @hwId, @firmware, id, receiver_id, receiver_kind, transport, @remote, @at
           FROM objects WHERE id = @mainId`,
        )
        .run(params);
      return this.addSightings(Number(result.lastInsertRowid), input.at);
    });
    return this.reread(guard('save related object', () => run.immediate()));
  }

  /**
   * The object communicated at `at` (a ping too when `ping`); timestamps never move backwards.
   * The objects row is written only when the remote address changed: a sighting from the same
   * address dirties one page of object_sightings and nothing else (docs/store.md §Sightings).
   */
  markSeen(id: number, at: number, remoteAddress: string | null, options: { ping?: boolean } = {}): void {
    guard('mark object seen', () => {
      this.seenAt(id, at, options.ping === true);
      if (remoteAddress !== null) {
        this.sql
          .get('UPDATE objects SET remote_address = ? WHERE id = ? AND remote_address IS NOT ?')
          .run(remoteAddress, id, remoteAddress);
      }
    });
  }

  /** Adds DC-09 quirk bits (src/core/dc09-quirks.ts) to an object's mark; bits are never cleared. */
  addQuirks(id: number, mask: number): void {
    guard('mark object quirks', () =>
      this.sql
        .get('UPDATE objects SET dc09_quirks = dc09_quirks | ? WHERE id = ? AND dc09_quirks & ? <> ?')
        .run(mask, id, mask, mask),
    );
  }

  setConnectionState(id: number, state: ConnectionState): void {
    guard('set connection state', () =>
      this.sql.get('UPDATE objects SET connection_state = ? WHERE id = ?').run(state, id),
    );
  }

  updateSupervision(id: number, patch: SupervisionPatch): void {
    const sets: string[] = [];
    const params: Params = { id };
    const set = (column: string, value: unknown): void => {
      sets.push(`${column} = @${column}`);
      params[column] = value;
    };
    if (patch.supervisionState !== undefined) set('supervision_state', patch.supervisionState);
    if (patch.linkPeriodS !== undefined) set('link_period_s', patch.linkPeriodS);
    if (patch.sms !== undefined) set('sms', Number(patch.sms));
    if (patch.restoreCount !== undefined) set('restore_count', patch.restoreCount);
    if (sets.length === 0) return;
    guard('update supervision', () => this.sql.get(`UPDATE objects SET ${sets.join(', ')} WHERE id = @id`).run(params));
  }

  /** Newest first (highest id), paged by id cursor. */
  list(filter: ObjectListFilter): Page<ObjectRecord> {
    checkLimit(filter.limit);
    if (filter.receiverIds !== null && filter.receiverIds.length === 0) return { items: [], nextCursor: null };
    const where: string[] = [];
    const params: Params = { limit: filter.limit + 1 };
    visibilityClause('receiver_id', filter.receiverIds, where, params);
    if (filter.account !== undefined) {
      where.push('account = @account');
      params.account = filter.account;
    }
    if (filter.receiverId !== undefined) {
      where.push('receiver_id = @receiverId');
      params.receiverId = filter.receiverId;
    }
    if (filter.connectionState !== undefined) {
      where.push('connection_state = @connectionState');
      params.connectionState = filter.connectionState;
    }
    if (filter.search !== undefined) {
      // substr() rather than LIKE: the search text may hold % or _ and must match literally.
      where.push('(account = @search OR substr(uid, -length(@searchUid)) = @searchUid)');
      params.search = filter.search;
      params.searchUid = filter.search.toUpperCase();
    }
    if (filter.before !== undefined) {
      where.push('id < @before');
      params.before = filter.before;
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    return toPage(
      this.many('list objects', `${SELECT_OBJECTS} ${clause} ORDER BY id DESC LIMIT @limit`, params),
      filter.limit,
    );
  }

  /** How many objects are in each connection state (GET /metrics: lost objects). */
  countByState(): Record<string, number> {
    return guard('count objects', () => {
      const rows = this.sql
        .get('SELECT connection_state AS state, count(*) AS n FROM objects GROUP BY connection_state')
        .all() as { state: string; n: number }[];
      return Object.fromEntries(rows.map((r) => [r.state, r.n]));
    });
  }

  /** How many objects there are. */
  count(): number {
    return guard('count objects', () => (this.sql.get('SELECT count(*) AS n FROM objects').get() as { n: number }).n);
  }

  /** Up to `limit` objects with an id above `afterId`, oldest first (the status output's snapshot, in pages). */
  pageAfter(afterId: number, limit: number): ObjectRecord[] {
    return this.many('page objects', `${SELECT_OBJECTS} WHERE id > @afterId ORDER BY id LIMIT @limit`, {
      afterId,
      limit,
    });
  }

  /** Every object, oldest first: the tracker's working set at start. */
  all(): ObjectRecord[] {
    return this.many('list all objects', `${SELECT_OBJECTS} ORDER BY id`, {});
  }

  /**
   * Retention (database.remove_lost_objects_age): deletes lost objects not heard from since
   * `cutoff` (ms epoch). Their related objects and session logs cascade away; events keep
   * their object_id, which AUTOINCREMENT guarantees will never point at another object.
   */
  deleteLostOlderThan(cutoff: number): number {
    return guard(
      'delete lost objects',
      () =>
        this.sql
          .get(
            `DELETE FROM objects WHERE connection_state = 'lost'
             AND coalesce((SELECT last_seen FROM object_sightings WHERE object_id = objects.id), first_seen) < ?`,
          )
          .run(cutoff).changes,
    );
  }

  /**
   * Retention of objects heard once (docs/retention.md): a message from an account never seen makes an
   * object, and an object without a learned period is never lost, so without this a stranger's fresh
   * accounts would stay for ever. Deletes main objects without a UID (an enrolled device is an
   * installer's; a related object needs a proven device link) whose only sighting is their creation,
   * made before `cutoff`, and that carry no related objects.
   */
  deleteSeenOnceBefore(cutoff: number): number {
    return guard(
      'delete objects seen once',
      () =>
        this.sql
          .get(
            `DELETE FROM objects WHERE uid IS NULL AND main_object_id IS NULL AND first_seen < ?
             AND coalesce((SELECT last_seen FROM object_sightings WHERE object_id = objects.id), first_seen) = first_seen
             AND NOT EXISTS (SELECT 1 FROM objects AS r WHERE r.main_object_id = objects.id)`,
          )
          .run(cutoff).changes,
    );
  }

  /** A new object's sightings row: last seen when first seen, never pinged. */
  private addSightings(id: number, at: number): number {
    this.sql.get('INSERT INTO object_sightings (object_id, last_seen) VALUES (?, ?)').run(id, at);
    return id;
  }

  /** The sightings row heard at `at` (a ping too when `ping`); its timestamps never move backwards. */
  private seenAt(id: number, at: number, ping: boolean): void {
    this.sql
      .get(
        `UPDATE object_sightings SET last_seen = max(last_seen, @at),
           last_ping = CASE WHEN @ping THEN max(coalesce(last_ping, 0), @at) ELSE last_ping END
         WHERE object_id = @id`,
      )
      .run({ id, at, ping: ping ? 1 : 0 });
  }

  private reread(id: number): ObjectRecord {
    const record = this.get(id);
    if (!record) throw new VigilError('STORE_FAILURE', `object ${id} vanished after it was saved`);
    return record;
  }

  private one(what: string, sql: string, ...params: unknown[]): ObjectRecord | null {
    return guard(what, () => {
      const row = this.sql.get(sql).get(...params) as ObjectRow | undefined;
      return row ? this.record(row) : null;
    });
  }

  private many(what: string, sql: string, params: Params): ObjectRecord[] {
    return guard(what, () => (this.sql.get(sql).all(params) as ObjectRow[]).map((row) => this.record(row)));
  }

  private record(row: ObjectRow): ObjectRecord {
    const record = toRecord(row);
    return this.live ? this.live.apply(record) : record;
  }
}
