/**
 * The MLR2 computer-port feed as a session's FrameRules (docs/serial.md §protocol "MLR2"): the DC4 framer, the pure line
 * decision (src/protocols/mlr2/handler.ts), NAK for a line the framer drops as over-long. It also notes when the
 * line last showed life (a heartbeat or any well-formed message) for the receiver's heartbeat supervision.
 */
import type { ReceiverRef } from '../ingest/types.js';
import type { FrameDecision } from '../protocols/dc09/handler.js';
import { Mlr2Framer } from '../protocols/mlr2/framer.js';
import { MLR2_NAK, handleMlr2Line } from '../protocols/mlr2/handler.js';
import type { FrameRules, StreamFramer } from './session-deps.js';

export class Mlr2Rules implements FrameRules {
  readonly ref: ReceiverRef;
  readonly rejectReply = MLR2_NAK;
  /** Heartbeats received (they are ACKed, never journaled). */
  heartbeats = 0;
  /** ms epoch of the last heartbeat or well-formed message; null before the first. */
  lastAlive: number | null = null;

  constructor(id: number) {
    this.ref = { id, kind: 'com' };
  }

  createFramer(): StreamFramer {
    return new Mlr2Framer();
  }

  decide(body: Buffer, now: number): FrameDecision {
    const decision = handleMlr2Line(body);
    if (decision.heartbeat) this.heartbeats++;
    if (decision.action === 'ack') this.lastAlive = now;
    return decision;
  }
}
