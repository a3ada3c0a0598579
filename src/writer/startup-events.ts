/**
 * Ignorable startup events (docs/supervision.md §Ignorable startup events). A device that powers
 * up or reconnects, and every device when the gateway starts, sends events that say only "I
 * (re)started" (Contact ID 305 system reset, power-up, communication restored, ...). Those that
 * match a configured `ignorable_startup_events` triplet are journaled but flagged
 * EVENT_FLAG_IGNORABLE_STARTUP, so outputs never forward them.
 *
 * An event is a STARTUP event when it was received within `windowMs` (60 s) after
 *   1. the gateway started, or
 *   2. the TCP connection that carried it was opened (the device's session start), or
 *   3. for a message without a connection (UDP): the object's first message ever, or its first
 *      after a silence of at least `quietGapMs` (2 min) — the nearest a datagram comes to a session.
 * It is IGNORABLE when it is a startup event, a Contact ID event (numeric codes: SIA codes are
 * letters) and its (event code, group, zone) equal a configured triplet numerically ("0A" ==
 * "00a"), whatever its qualifier (E/R/P).
 */
import type { IgnorableStartupEvent } from '../settings/schema.js';
import { EVENT_FLAG_IGNORABLE_STARTUP } from '../store/types.js';
import type { NewEvent } from '../core/event-row.js';

export const STARTUP_WINDOW_MS = 60_000;
export const QUIET_GAP_MS = 120_000;

type EventFields = Pick<NewEvent, 'protocol' | 'code' | 'groupNo' | 'zoneNo'>;

/** What flagsFor reads of a journal row. */
export type StartupRow = EventFields & Pick<NewEvent, 'receivedAt' | 'objectId' | 'flags'>;

/**
 * The part of the classifier's options the main thread owns and sends with every journal batch:
 * the journal writer thread flags the rows (src/writer/batch-writer.ts), where each row's object
 * is decided, so identity is decided once, in one thread.
 */
export interface StartupRules {
  readonly gatewayStartedAt: number;
  readonly triplets: readonly IgnorableStartupEvent[];
}

function hexValue(text: string | null | undefined): number | null {
  if (text === null || text === undefined || !/^[0-9A-Fa-f]{1,8}$/.test(text)) return null;
  return Number.parseInt(text, 16);
}

/** Does a Contact ID event carry one of the configured triplets? Pure. */
export function matchesTriplet(event: EventFields, triplets: readonly IgnorableStartupEvent[]): boolean {
  if (event.protocol !== 'ADM-CID' || triplets.length === 0) return false;
  const code = hexValue(event.code);
  const group = hexValue(event.groupNo);
  const zone = hexValue(event.zoneNo);
  if (code === null || group === null || zone === null) return false;
  return triplets.some(
    (t) => hexValue(t.event_code) === code && hexValue(t.group_no) === group && hexValue(t.zone_no) === zone,
  );
}

export interface StartupClassifierOptions {
  /** Wall time the gateway started (ms epoch). */
  readonly gatewayStartedAt: number;
  /** The configured triplets, read at every event so a settings change applies at once. */
  readonly triplets: () => readonly IgnorableStartupEvent[];
  readonly windowMs?: number;
  readonly quietGapMs?: number;
}

export class StartupEventClassifier {
  private readonly options: StartupClassifierOptions;
  private readonly windowMs: number;
  private readonly quietGapMs: number;
  /** Connectionless objects: the start of their current "session" and when they were last heard. */
  private readonly datagram = new Map<number, { sessionAt: number; lastAt: number }>();

  constructor(options: StartupClassifierOptions) {
    this.options = options;
    this.windowMs = options.windowMs ?? STARTUP_WINDOW_MS;
    this.quietGapMs = options.quietGapMs ?? QUIET_GAP_MS;
  }

  /**
   * The flags a device event row gets, decided in the journal writer's transaction once the row's
   * object is known (src/writer/batch-writer.ts). `connectedAt`: when the TCP connection carrying it
   * opened; null for a datagram.
   */
  flagsFor(row: StartupRow, connectedAt: number | null): number {
    const at = row.receivedAt;
    let sessionAt = connectedAt;
    if (sessionAt === null && row.objectId != null) sessionAt = this.noteDatagram(row.objectId, at);
    const startup =
      this.within(this.options.gatewayStartedAt, at) || (sessionAt !== null && this.within(sessionAt, at));
    if (!startup || !matchesTriplet(row, this.options.triplets())) return row.flags ?? 0;
    return (row.flags ?? 0) | EVENT_FLAG_IGNORABLE_STARTUP;
  }

  /**
   * Any message of an object the journal writer attributed, link tests included: a UDP device
   * that keeps sending NULLs is not silent, so its next alarm opens no new session.
   */
  seen(objectId: number, at: number): void {
    this.noteDatagram(objectId, at);
  }

  private within(start: number, at: number): boolean {
    return at >= start && at - start < this.windowMs;
  }

  private noteDatagram(objectId: number, at: number): number {
    const known = this.datagram.get(objectId);
    if (!known || at - known.lastAt >= this.quietGapMs) {
      this.datagram.set(objectId, { sessionAt: at, lastAt: at });
      return at;
    }
    if (at > known.lastAt) known.lastAt = at;
    return known.sessionAt;
  }
}
