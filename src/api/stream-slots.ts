/**
 * The bound on open event streams (GET /api/events/stream, docs/api.md "Event stream"): each
 * holds a socket, a timer and a journal position, so a user (or a leaked token) may not open
 * them without end. One instance per app; a slot is taken when a stream opens and given back
 * when it ends, whatever ended it.
 */
export interface StreamSlotLimits {
  readonly perUser: number;
  readonly total: number;
}

export class StreamSlots {
  private open = 0;
  private readonly byUser = new Map<string, number>();

  constructor(private readonly limits: StreamSlotLimits) {}

  /** A release function, or null when the user's or the total bound is reached. */
  take(user: string): (() => void) | null {
    const mine = this.byUser.get(user) ?? 0;
    if (this.open >= this.limits.total || mine >= this.limits.perUser) return null;
    this.open += 1;
    this.byUser.set(user, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open -= 1;
      const left = (this.byUser.get(user) ?? 1) - 1;
      if (left === 0) this.byUser.delete(user);
      else this.byUser.set(user, left);
    };
  }

  get count(): number {
    return this.open;
  }
}
