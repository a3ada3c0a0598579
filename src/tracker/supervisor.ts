/**
 * The supervision state machine of every main object (docs/supervision.md), without timers or a
 * bus: the Tracker service feeds it sightings and sweeps, and journals the transitions it returns.
 * Times are on the supervision clock (monotonic in production), so a wall-clock step never
 * makes objects lost or extends their deadlines; wall times are used only for what is persisted.
 *
 * Per object:  unsupervised (no period yet) -> supervised <-> lost
 * - heard(): any message restarts the silence; while lost it counts toward the restore.
 * - sweep(): a supervised object silent for longer than period × multiplier + tolerance is lost.
 */
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { TrackerSettings } from '../settings/schema.js';
import type { ConnectionState, ObjectRecord, SupervisionPatch } from '../store/types.js';
import { EMPTY_LEARNER, learnFromLinkTest, type LearnerState } from './period-learner.js';
import type { PendingWrites } from './pending-writes.js';
import { isOverdue, paramsFor, restartGraceMs, timeoutMs } from './supervision-rules.js';

/** objects.supervision_state values written by the tracker; null = not supervised (no period). */
export const SUPERVISED = 'supervised';
export const LOST = 'lost';
/** How often an object's SMS flag is re-read from the store (at its next message). */
export const REFRESH_MS = 10 * 60_000;

/** The slice of the store's ObjectsRepo the supervisor uses. */
export interface SupervisionObjects {
  all(): ObjectRecord[];
  get(id: number): ObjectRecord | null;
}

/** The supervision writes: commands to the store's one writer (`store.write.objects`). */
export interface SupervisionWrites {
  updateSupervision(id: number, patch: SupervisionPatch): Promise<void>;
  setConnectionState(id: number, state: ConnectionState): Promise<void>;
}

/** What the previous run left in the meta checkpoint (wall ms). */
export interface RunCheckpoint {
  readonly runStartedAt: number;
  readonly aliveAt: number;
}

/** What the previous run left, as load() takes it over. */
export interface PreviousRun {
  readonly checkpoint: RunCheckpoint | null;
  /** How far the stored last_seen may lag what that run heard (0: it wrote every sighting as it stopped). */
  readonly lastSeenLagMs: number;
}

export interface Transition {
  readonly kind: 'lost' | 'restored';
  readonly objectId: number;
}

export interface WatchState {
  readonly id: number;
  sms: boolean;
  periodS: number | null;
  /** When last heard (supervision clock); after a restart, a virtual time that yields the grace. */
  heardAt: number;
  lost: boolean;
  restoreCount: number;
  /** When sms was last read from the store (supervision clock). */
  refreshedAt: number;
  /** Learner over DC-09 NULL link tests. */
  nulls: LearnerState;
  /** Learner over link-test events (CID 602, SIA RP): used only while no NULL was seen. */
  tests: LearnerState;
  sawNull: boolean;
}

export interface SupervisorDeps {
  readonly objects: SupervisionObjects;
  readonly writes: SupervisionWrites;
  /** Where the writes in flight are followed (the tracker's, so its stop() waits for them). */
  readonly pending: PendingWrites;
  readonly settings: () => TrackerSettings;
  /** The supervision clock. */
  readonly now: () => number;
  readonly logger: Logger;
}

export class Supervisor {
  private readonly deps: SupervisorDeps;
  private readonly watched = new Map<number, WatchState>();
  /** Related objects: supervised through their main device, never on their own. */
  private readonly ignored = new Set<number>();
  private lostAtSweep = 0;

  constructor(deps: SupervisorDeps) {
    this.deps = deps;
  }

  /**
   * Takes over the persisted state at start (docs/supervision.md §Restart). `previous.checkpoint`
   * is the checkpoint of the run before, null when none. Both it and last_seen are in the previous
   * run's wall-clock base, so a clock stepped between runs does not distort the remaining time.
   */
  load(run: PreviousRun): void {
    const previous = run.checkpoint;
    this.watched.clear();
    this.ignored.clear();
    const now = this.deps.now();
    const settings = this.deps.settings();
    for (const record of this.deps.objects.all()) {
      if (record.mainObjectId !== null) {
        this.ignored.add(record.id);
        continue;
      }
      const state = this.fresh(record, now);
      if (state.periodS !== null && !state.lost) {
        const params = paramsFor(settings, state.sms);
        const timeout = timeoutMs(state.periodS, params);
        const grace = restartGraceMs({
          lastSeen: record.lastSeen,
          lastSeenLagMs: run.lastSeenLagMs,
          periodS: state.periodS,
          params,
          aliveAt: previous?.aliveAt ?? null,
          previousRunStart: previous?.runStartedAt ?? null,
        });
        // Grace 0: the deadline passed while the previous run watched; the first sweep reports it.
        state.heardAt = grace === 0 ? now - timeout - 1 : now + grace - timeout;
      }
      this.watched.set(record.id, state);
    }
  }

  /** A message (any kind) of the object was committed; `nullLinkTest`: a DC-09 NULL among them. */
  heard(objectId: number, nullLinkTest: boolean): Transition | null {
    const state = this.stateOf(objectId);
    if (!state) return null;
    const now = this.deps.now();
    if (now - state.refreshedAt > REFRESH_MS) this.refresh(state, now);
    if (nullLinkTest) {
      state.sawNull = true;
      this.learn(state, 'nulls', now);
    }
    const silentFor = now - state.heardAt;
    state.heardAt = now;
    if (!state.lost) return null;
    const params = paramsFor(this.deps.settings(), state.sms);
    // Restore messages must follow each other within the timeout, or counting starts over.
    // (The first message after going lost always starts at 1: the silence before it was too long.)
    const gapLimit = state.periodS === null ? Infinity : timeoutMs(state.periodS, params);
    state.restoreCount = silentFor > gapLimit ? 1 : state.restoreCount + 1;
    if (state.restoreCount < params.restoreCount) {
      this.persist(state.id, { restoreCount: state.restoreCount });
      return null;
    }
    state.lost = false;
    state.restoreCount = 0;
    this.persist(state.id, { supervisionState: state.periodS === null ? null : SUPERVISED, restoreCount: 0 }, 'online');
    return { kind: 'restored', objectId: state.id };
  }

  /** A link-test event (event class link_test) of the object: a period sample, not a message count. */
  testEvent(objectId: number): void {
    const state = this.stateOf(objectId);
    if (state && !state.sawNull) this.learn(state, 'tests', this.deps.now());
  }

  /** A new object: watched from now, unsupervised until its period is learned. */
  registered(record: ObjectRecord): void {
    if (record.mainObjectId !== null) {
      this.ignored.add(record.id);
      return;
    }
    if (!this.watched.has(record.id)) this.watched.set(record.id, this.fresh(record, this.deps.now()));
  }

  /** Objects whose silence exceeds their timeout now go lost; their transitions, in id order. */
  sweep(): Transition[] {
    const now = this.deps.now();
    const settings = this.deps.settings();
    // Once per sweep, not per object: a sweep walks every object each second.
    const ip = paramsFor(settings, false);
    const sms = paramsFor(settings, true);
    const lost: Transition[] = [];
    let lostNow = 0;
    for (const state of this.watched.values()) {
      if (state.lost) lostNow++;
      if (state.lost || state.periodS === null) continue;
      if (!isOverdue(now, state.heardAt, timeoutMs(state.periodS, state.sms ? sms : ip))) continue;
      state.lost = true;
      state.restoreCount = 0;
      this.persist(state.id, { supervisionState: LOST, restoreCount: 0 }, 'lost');
      lost.push({ kind: 'lost', objectId: state.id });
      lostNow++;
    }
    this.lostAtSweep = lostNow;
    return lost;
  }

  /** The SMS flag of an object changed (modem receivers set it): it selects the sms_* settings. */
  setSms(objectId: number, sms: boolean): void {
    const state = this.watched.get(objectId);
    if (state) state.sms = sms;
  }

  /** Re-reads what others may change in the store: the SMS flag (set by the modem receiver). */
  private refresh(state: WatchState, now: number): void {
    state.refreshedAt = now;
    const record = this.read(state.id);
    if (record) state.sms = record.sms;
  }

  state(objectId: number): Readonly<WatchState> | undefined {
    return this.watched.get(objectId);
  }

  get size(): number {
    return this.watched.size;
  }

  /** Objects lost as of the last sweep (a restore between sweeps shows at the next one). */
  get lostCount(): number {
    return this.lostAtSweep;
  }

  private fresh(record: ObjectRecord, now: number): WatchState {
    return {
      id: record.id,
      sms: record.sms,
      periodS: record.linkPeriodS,
      heardAt: now,
      lost: record.supervisionState === LOST,
      restoreCount: record.restoreCount,
      refreshedAt: now,
      nulls: EMPTY_LEARNER,
      tests: EMPTY_LEARNER,
      sawNull: false,
    };
  }

  /** Watch state of an object the store knows; related objects and unknown ids give undefined. */
  private stateOf(objectId: number): WatchState | undefined {
    const known = this.watched.get(objectId);
    if (known || this.ignored.has(objectId)) return known;
    const record = this.read(objectId);
    if (!record) return undefined;
    this.registered(record);
    return this.watched.get(objectId);
  }

  private learn(state: WatchState, which: 'nulls' | 'tests', now: number): void {
    const result = learnFromLinkTest(state[which], now, state.periodS);
    state[which] = result.state;
    if (result.periodS === null) return;
    this.deps.logger.info('link-test period learned', {
      object_id: state.id,
      period_s: result.periodS,
      from: which,
      previous_s: state.periodS,
    });
    state.periodS = result.periodS;
    this.persist(state.id, { linkPeriodS: result.periodS, supervisionState: state.lost ? LOST : SUPERVISED });
  }

  private read(objectId: number): ObjectRecord | null {
    try {
      return this.deps.objects.get(objectId);
    } catch (err) {
      this.deps.logger.error('cannot read object', { object_id: objectId, error: describeError(err) });
      return null;
    }
  }

  /**
   * The in-memory state leads; the writes go out now, in order, and a failed one is logged and
   * rewritten at the next transition.
   */
  private persist(id: number, patch: SupervisionPatch, connection?: ConnectionState): void {
    const { writes, pending, logger } = this.deps;
    const failed = (err: unknown): void =>
      logger.error('cannot persist supervision state', { object_id: id, error: describeError(err) });
    pending.add(writes.updateSupervision(id, patch), failed);
    if (connection) pending.add(writes.setConnectionState(id, connection), failed);
  }
}
