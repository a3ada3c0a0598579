/**
 * A simulated panel's clock: the host's time plus the panel's own error. A receiver's NAK
 * (SIA DC-09 §5.5.3.2) and the gateway's VL-TIME / VL-REFUSE TIME carry the receiver's time;
 * the panel sets its clock from them, as real transmitters do, and its next timestamp passes.
 */
import type { Clock } from '../core/clock.js';

export class DeviceClock implements Clock {
  private readonly host: Clock;
  private offsetMs: number;

  constructor(host: Clock, initialOffsetMs = 0) {
    this.host = host;
    this.offsetMs = initialOffsetMs;
  }

  now(): number {
    return this.host.now() + this.offsetMs;
  }

  /** Sets the clock to `receiverTime` (ms since the epoch; whole seconds on the wire). */
  setTo(receiverTime: number): void {
    this.offsetMs = receiverTime - this.host.now();
  }

  get offset(): number {
    return this.offsetMs;
  }
}
