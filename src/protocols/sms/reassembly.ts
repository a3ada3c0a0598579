/**
 * Reassembly of concatenated SMS (3GPP TS 23.040 §9.2.3.24.1): parts are keyed by sender,
 * reference and part count, may arrive in any order, and each keeps the storage index it was
 * read from so the caller can delete every part from the SIM once the whole message is stored.
 * No timers: the caller passes `now` and asks for what has waited too long (docs/modem.md).
 */
import type { ConcatInfo } from './udh.js';

export interface SmsPart<T> {
  readonly sender: string;
  readonly concat: ConcatInfo;
  readonly text: string;
  /** What the caller needs back with the whole message (the storage index, the SMSC time...). */
  readonly tag: T;
}

export interface Reassembled<T> {
  readonly sender: string;
  /** Parts in sequence order joined; a missing part (expired message) reads "[part n missing]". */
  readonly text: string;
  /** Every part's tag, duplicates included (a SIM may hold the same part twice). */
  readonly tags: T[];
  readonly complete: boolean;
}

interface Pending<T> {
  readonly sender: string;
  readonly total: number;
  readonly parts: Map<number, string>;
  readonly tags: T[];
  readonly firstAt: number;
}

export class SmsReassembler<T> {
  private readonly pending = new Map<string, Pending<T>>();

  /** Adds a part; returns the whole message once its last missing part arrived, else null. */
  add(part: SmsPart<T>, now: number): Reassembled<T> | null {
    const { ref, total, seq } = part.concat;
    const key = `${part.sender}\u0000${ref}\u0000${total}`;
    let entry = this.pending.get(key);
    if (!entry) {
      entry = { sender: part.sender, total, parts: new Map(), tags: [], firstAt: now };
      this.pending.set(key, entry);
    }
    entry.tags.push(part.tag);
    if (!entry.parts.has(seq)) entry.parts.set(seq, part.text);
    if (entry.parts.size < total) return null;
    this.pending.delete(key);
    return whole(entry, true);
  }

  /** Messages whose first part arrived `maxAgeMs` or longer ago, incomplete, removed from the pending set. */
  expire(now: number, maxAgeMs: number): Reassembled<T>[] {
    const out: Reassembled<T>[] = [];
    for (const [key, entry] of this.pending) {
      if (now - entry.firstAt < maxAgeMs) continue;
      this.pending.delete(key);
      out.push(whole(entry, false));
    }
    return out;
  }

  /** Whether a part with this tag is held (so a re-listing of the SIM does not add it twice). */
  holds(match: (tag: T) => boolean): boolean {
    for (const entry of this.pending.values()) if (entry.tags.some(match)) return true;
    return false;
  }

  get size(): number {
    return this.pending.size;
  }

  clear(): void {
    this.pending.clear();
  }
}

function whole<T>(entry: Pending<T>, complete: boolean): Reassembled<T> {
  let text = '';
  for (let seq = 1; seq <= entry.total; seq++) text += entry.parts.get(seq) ?? `[part ${seq} missing]`;
  return { sender: entry.sender, text, tags: entry.tags, complete };
}
