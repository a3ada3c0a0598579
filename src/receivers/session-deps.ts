/** What one receiver session is given by its receiver (shared by the session and its device-link endpoint). */
import type { Admission } from '../core/admission/admission.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { LinkEnrolment } from '../devices/device-keys.js';
import type { LinkRegistry } from '../devices/link-registry.js';
import type { EventIngest } from '../ingest/event-ingest.js';
import type { ReceiverRef } from '../ingest/types.js';
import type { FrameQuirk, FrameTolerances, FramerItem } from '../protocols/dc09/frame.js';
import type { DecodedEvent, FrameDecision } from '../protocols/dc09/handler.js';
import type { HelloContext } from '../protocols/device-link/hello-handler.js';
import type { NewObjectGate } from './new-object-gate.js';
import type { ReceiverCounters } from './receiver-counters.js';

/** Cuts a byte stream into frames (Dc09Framer, Mlr2Framer): resyncs on garbage, never throws. */
export interface StreamFramer {
  push(chunk: Buffer): FramerItem[];
  reset(): void;
  /** Bytes skipped outside any frame so far. */
  readonly discardedBytes: number;
}

/**
 * The protocol a session speaks on a receiver: DC-09 with the receiver's rules (Dc09Rules), or the MLR2
 * computer-port feed (Mlr2Rules). Every frame a session decides (TCP, UDP, serial lines) goes through one of
 * these; an SMS is no frame: the modem receiver interprets and journals it itself (docs/modem.md §Incoming SMS).
 */
export interface FrameRules {
  readonly ref: ReceiverRef;
  createFramer(): StreamFramer;
  /** `frameQuirks`: the deviations the framer tolerated in this frame (DC-09), so the reply takes the same form. */
  decide(body: Buffer, now: number, frameQuirks?: readonly FrameQuirk[]): FrameDecision;
  /** DC-09: the frame-level deviations accepted in datagrams (the stream framer gets them from createFramer). */
  readonly frameTolerances?: FrameTolerances;
  /** The answer to a frame the framer rejected: none for DC-09 (§5.5.1.2: the transmitter repeats), NAK for MLR2. */
  readonly rejectReply: Buffer | null;
  /** The events of a decision were committed (DC-09: later copies of the frame are replays, docs/dc09.md "Replays"). */
  journaled?(events: readonly DecodedEvent[], now: number): void;
}

/** The device link's rules on a receiver (its key and HELLO checks, docs/device-link.md). */
export interface LinkRules {
  readonly ref: ReceiverRef;
  readonly key: Buffer | null;
  /** Receiver setting `link_enrolment` (docs/device-link.md §4.2). */
  readonly enrolment: LinkEnrolment;
  helloContext(now: number, deviceKey: HelloContext['deviceKey']): HelloContext;
}

export interface SessionDeps {
  readonly rules: FrameRules;
  /** Given where a stream is one device that can be commanded (TCP): `VL-` bodies are served; elsewhere counted `link_ignored`. */
  readonly deviceLink?: LinkRules;
  readonly counters: ReceiverCounters;
  readonly ingest: Pick<EventIngest, 'submit' | 'submitTo' | 'closeSession'>;
  readonly links: LinkRegistry;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Frames awaiting their commit: a stream pauses reading there, datagrams beyond it are dropped unanswered. */
  readonly maxInFlight: number;
  /** IP receivers: the HELLO and enrolment allowances (docs/security.md "Admission"); absent on serial lines. */
  readonly admission?: Admission;
  /** IP receivers: a frame from an account never seen needs a new-object allowance (new-object-gate.ts). */
  readonly newObjects?: NewObjectGate;
}
