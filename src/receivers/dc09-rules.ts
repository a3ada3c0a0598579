/**
 * The DC-09 rules of one configured receiver as a session's FrameRules (beside mlr2-rules.ts): its
 * identity, its key and the per-frame decision with the receiver's settings (`tcp_receivers` /
 * `udp_receivers` items, and the same fields of `com_receivers`). They are also the receiver's
 * LinkRules: the same key serves the device link.
 */
import { receiverPasswordKey } from '../protocols/dc09/crypto.js';
import { Dc09Framer, reframe, type FrameQuirk, type FrameTolerances } from '../protocols/dc09/frame.js';
import { handleFrame, type DecodedEvent, type FrameDecision, type HandlerContext } from '../protocols/dc09/handler.js';
import { ReplayCache, replayKey } from '../protocols/dc09/replay-cache.js';
import type { LinkEnrolment } from '../devices/device-keys.js';
import type { HelloContext } from '../protocols/device-link/hello-handler.js';
import type { ReceiverRef } from '../ingest/types.js';
import type { Dc09RuleSettings } from '../settings/schema-receivers.js';
import type { ReceiverKind } from '../store/types.js';
import type { FrameRules, LinkRules, StreamFramer } from './session-deps.js';

export class Dc09Rules implements FrameRules, LinkRules {
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
