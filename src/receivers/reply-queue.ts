/**
 * Replies of one connection in frame order. A frame's reply may be known at once (NAK, DUH,
 * device-link refusal) or only after its group commit (ACK): it takes a slot when the frame is
 * read, and slots leave strictly from the head, so replies keep the order of the frames even
 * though commits are batched across connections.
 */
export interface ReplySlot {
  reply: Buffer | null;
  ready: boolean;
  /** Runs right after the reply was written (a WELCOME attaches the link only then). */
  after: (() => void) | null;
}

/** Compact the backing array once this many slots have left it. */
const COMPACT_AT = 1024;

export class ReplyQueue {
  private slots: ReplySlot[] = [];
  private head = 0;

  /** Slots not yet written (ready or not). */
  get length(): number {
    return this.slots.length - this.head;
  }

  push(reply: Buffer | null, ready: boolean): ReplySlot {
    const slot: ReplySlot = { reply, ready, after: null };
    this.slots.push(slot);
    return slot;
  }

  /**
   * Writes every ready reply at the head, several at once as one buffer (one syscall), then runs
   * their `after` hooks. Returns the number of bytes written.
   */
  flush(write: (data: Buffer) => void): number {
    const slots = this.slots;
    let end = this.head;
    while (end < slots.length && slots[end]!.ready) end++;
    if (end === this.head) return 0;
    let single: Buffer | null = null;
    let many: Buffer[] | null = null;
    let hooks: Array<() => void> | null = null;
    for (let i = this.head; i < end; i++) {
      const slot = slots[i]!;
      if (slot.reply) {
        if (single === null && many === null) single = slot.reply;
        else (many ??= [single!]).push(slot.reply);
      }
      if (slot.after) (hooks ??= []).push(slot.after);
    }
    this.head = end;
    if (this.head === slots.length) {
      this.slots = [];
      this.head = 0;
    } else if (this.head >= COMPACT_AT) {
      this.slots = slots.slice(this.head);
      this.head = 0;
    }
    const data = many ? Buffer.concat(many) : single;
    if (data) write(data);
    if (hooks) for (const hook of hooks) hook();
    return data ? data.length : 0;
  }

  clear(): void {
    this.slots = [];
    this.head = 0;
  }
}
