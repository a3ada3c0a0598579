/**
 * One configured DC-09 receiver as the sessions see it: its identity, its key and the per-frame
 * decision with the receiver's rules (settings `tcp_receivers` / `udp_receivers` items, and the
 * same fields of `com_receivers`), plus the plain counters its health entry publishes
 * (docs/receivers.md §Health).
 */
import type { HealthRegistry } from '../core/health.js';
import { receiverPasswordKey } from '../protocols/dc09/crypto.js';
import { Dc09Framer, reframe, type FrameQuirk, type FrameTolerances } from '../protocols/dc09/frame.js';
import { handleFrame, type DecodedEvent, type FrameDecision, type HandlerContext } from '../protocols/dc09/handler.js';
import type { MessageQuirk } from '../protocols/dc09/message.js';
import { ReplayCache, replayKey } from '../protocols/dc09/replay-cache.js';
import type { LinkEnrolment } from '../devices/device-keys.js';
import type { HelloContext } from '../protocols/device-link/hello-handler.js';
import type { ReceiverRef } from '../ingest/types.js';
import type { Dc09RuleSettings } from '../settings/schema-receivers.js';
import type { ReceiverKind } from '../store/types.js';
import type { FrameRules, LinkRules, StreamFramer } from './session-deps.js';

export class ReceiverProfile implements FrameRules, LinkRules {
  readonly ref: ReceiverRef;
  readonly name: string;
  /** Health entry name: `rx:<kind>:<id>`. */
  readonly healthName: string;
  /** Frames the framer rejects (CRC, length, format) get no reply (SIA DC-09 §5.5.1.2). */
  readonly rejectReply = null;
  /**
   * The receiver's AES key from `encryption_password` (docs/dc09.md: 16 characters are the
   * AES-128 key, 6 characters are SHA-256-derived); the same key serves DC-09 and the device link.
   */
  readonly key: Buffer | null;
  /** Frame-level deviations this receiver accepts (docs/dc09.md "Tolerances"). */
  readonly frameTolerances: FrameTolerances;
  private readonly settings: Dc09RuleSettings;
  /** Reused for every frame: handleFrame is synchronous and keeps no reference to it. */
  private readonly ctx: HandlerContext;
  /** Time-tested messages whose events were journaled, per account (docs/dc09.md "Replays"). */
  private readonly replays: ReplayCache;
  /** The replay key of each ACKable decision's events, until the session reports the commit. */
  private readonly pendingReplays = new WeakMap<readonly DecodedEvent[], { account: string; key: string }>();

  constructor(kind: ReceiverKind, settings: Dc09RuleSettings) {
    this.settings = settings;
    this.ref = { id: settings.id, kind };
    this.name = settings.name;
    this.healthName = `rx:${kind}:${settings.id}`;
    this.key = settings.encryption_password ? receiverPasswordKey(settings.encryption_password) : null;
    this.ctx = {
      now: 0,
      key: this.key,
      requireEncryption: settings.require_encryption,
      windowPastS: settings.time_window_past_s,
      windowFutureS: settings.time_window_future_s,
      checkPlainTimestamps: settings.check_plain_timestamps,
      acceptLocalTime: settings.accept_local_time,
      tolerances: { emptyLine: settings.tolerate_empty_line, textAccount: settings.tolerate_text_account },
    };
    this.frameTolerances = {
      binaryCrc: settings.tolerate_binary_crc,
      crCounted: settings.tolerate_cr_counted,
      trailingBytes: settings.tolerate_trailing_bytes,
    };
    this.replays = new ReplayCache({ ttlMs: (settings.time_window_past_s + settings.time_window_future_s) * 1000 });
  }

  createFramer(): StreamFramer {
    return new Dc09Framer(undefined, this.frameTolerances);
  }

  /**
   * The handler's decision, with replays of time-tested messages (encrypted ones, or plain ones when
   * check_plain_timestamps) turned into an ACK without events (`replayed`): the sender may have
   * missed our ACK, but the events are in the journal already.
   */
  decide(body: Buffer, now: number, frameQuirks?: readonly FrameQuirk[]): FrameDecision {
    this.ctx.now = now;
    const decision = handleFrame(body, this.ctx);
    // A panel that frames differently gets its reply framed the same way (a binary-CRC panel, a binary-CRC ACK).
    if (frameQuirks !== undefined && decision.reply !== null) {
      const binaryCrc = frameQuirks.includes('binary-crc');
      const crCounted = frameQuirks.includes('cr-counted');
      if (binaryCrc || crCounted) decision.reply = reframe(decision.reply, { binaryCrc, crCounted });
    }
    const msg = decision.message;
    if (decision.action !== 'ack' || decision.events.length === 0 || !msg) return decision;
    if (!msg.encrypted && !this.settings.check_plain_timestamps) return decision;
    const key = replayKey(msg);
    if (key === null) return decision;
    if (this.replays.seen(key, now)) return { ...decision, events: [], replayed: true };
    this.pendingReplays.set(decision.events, key);
    return decision;
  }

  /** The session committed these events (the `events` of a decision): later copies are replays. */
  journaled(events: readonly DecodedEvent[], now: number): void {
    const key = this.pendingReplays.get(events);
    if (key === undefined) return;
    this.pendingReplays.delete(events);
    this.replays.remember(key, now);
  }

  /** Whether UIDs the gateway has never seen may enrol on this receiver (docs/device-link.md §4.4). */
  get enrolment(): LinkEnrolment {
    return this.settings.link_enrolment ?? 'open';
  }

  helloContext(now: number, deviceKey: HelloContext['deviceKey']): HelloContext {
    return {
      now,
      key: this.key,
      requireEncryption: this.settings.require_encryption,
      windowPastS: this.settings.time_window_past_s,
      windowFutureS: this.settings.time_window_future_s,
      deviceKey,
    };
  }
}

export type Dc09Quirk = FrameQuirk | MessageQuirk;

/** Plain numbers bumped on the hot path; published to the health registry on a timer. */
export class ReceiverCounters {
  /** Open TCP connections (UDP: always 0). */
  connections = 0;
  /** Connections accepted since start. */
  accepted = 0;
  /** Connections refused because max_connections was reached. */
  refused = 0;
  /** Connections refused: their source already had max_connections_per_source open (#28.6). */
  refusedSource = 0;
  /** Connections refused: their source exceeded max_accepts_per_source_per_min. */
  refusedRate = 0;
  /** Connections refused: the gateway's connection budget had no room and no stranger to shed. */
  refusedBudget = 0;
  /** Stranger connections closed to make room for a newcomer (connection-budget.ts). */
  shed = 0;
  /** Connections closed because no valid frame came within first_frame_timeout_s of silence. */
  firstFrameTimeouts = 0;
  /** UDP datagrams dropped undecided: their source exceeded max_datagrams_per_source_per_s (#28.9). */
  rateLimited = 0;
  /** UDP replies not sent: longer than the datagram, to a source not known yet (#28.9). */
  repliesWithheld = 0;
  /** Frames with a good CRC and length. */
  frames = 0;
  /** Journal rows written. */
  events = 0;
  acks = 0;
  naks = 0;
  duhs = 0;
  /** Frames or datagrams dropped for CRC, length or format: never answered. */
  rejected = 0;
  linkTests = 0;
  /** Device links currently attached (TCP). */
  links = 0;
  /** Device-link messages ignored (unexpected, undecodable, no link). */
  linkIgnored = 0;
  /** UDP datagrams dropped because too many awaited their commit. */
  dropped = 0;
  /** Replayed messages ACKed without journaling their events again (docs/dc09.md "Replays"). */
  replays = 0;
  /** Frames that showed each tolerated deviation (docs/dc09.md "Tolerances"), by quirk. */
  readonly quirks: Record<Dc09Quirk, number> = {
    'binary-crc': 0,
    'cr-counted': 0,
    'trailing-bytes': 0,
    'empty-line': 0,
    'text-account': 0,
  };

  /** Called only for frames that showed a deviation (the standard path never gets here). */
  countQuirks(quirks: readonly Dc09Quirk[]): void {
    for (const quirk of quirks) this.quirks[quirk]++;
  }

  publish(health: HealthRegistry, name: string, listening: string | null): void {
    health.setMetrics(name, {
      connections: this.connections,
      accepted: this.accepted,
      refused: this.refused,
      refused_source: this.refusedSource,
      refused_rate: this.refusedRate,
      refused_budget: this.refusedBudget,
      shed: this.shed,
      first_frame_timeouts: this.firstFrameTimeouts,
      rate_limited: this.rateLimited,
      replies_withheld: this.repliesWithheld,
      frames: this.frames,
      events: this.events,
      acks: this.acks,
      naks: this.naks,
      duhs: this.duhs,
      rejected: this.rejected,
      link_tests: this.linkTests,
      links: this.links,
      link_ignored: this.linkIgnored,
      dropped: this.dropped,
      replays: this.replays,
      quirk_binary_crc: this.quirks['binary-crc'],
      quirk_cr_counted: this.quirks['cr-counted'],
      quirk_trailing_bytes: this.quirks['trailing-bytes'],
      quirk_empty_line: this.quirks['empty-line'],
      quirk_text_account: this.quirks['text-account'],
      listening,
    });
  }
}
