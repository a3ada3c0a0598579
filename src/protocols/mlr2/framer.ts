/**
 * Cuts the MLR2 computer-port stream into lines: every message ends with DC4 (0x14). A serial line is a stream, so a
 * read is never taken for a message. Garbage never blocks the line (docs/serial.md §Garbage):
 *   - CR, LF, NUL and spaces between messages are ignored (some receivers pad with them);
 *   - a line that is no known message but has one after some leading bytes is resynchronised onto it (the skipped
 *     bytes are counted in `discardedBytes`);
 *   - a line longer than maxLineBytes is dropped: it is reported once, as `rejected` / `oversize`, when its DC4
 *     finally arrives, so the receiver is answered (NAK) and sends again; until then nothing is buffered.
 * Same item shape as the DC-09 framer, so the one session drives both.
 */
import type { FramerItem } from '../dc09/frame.js';
import { DC4 } from './codec.js';
import { MESSAGE_STARTS, decodeKnown } from './decoder.js';

/** The longest layout (SIA Protocol 2 with a 16-digit account, area and zone) is ~45 bytes; twice that and more is noise. */
export const MLR2_MAX_LINE_BYTES = 128;

const FILLER = new Set([0x0d, 0x0a, 0x00, 0x20]);

export class Mlr2Framer {
  private readonly maxLineBytes: number;
  private pending: Buffer = Buffer.alloc(0);
  /** Inside an over-long line: bytes are dropped until its DC4. */
  private overlong = false;
  private skipped = 0;

  constructor(maxLineBytes = MLR2_MAX_LINE_BYTES) {
    this.maxLineBytes = maxLineBytes;
  }

  /** Bytes dropped so far: garbage before a resynchronised message and the bodies of over-long lines. */
  get discardedBytes(): number {
    return this.skipped;
  }

  reset(): void {
    this.pending = Buffer.alloc(0);
    this.overlong = false;
  }

  push(chunk: Buffer): FramerItem[] {
    const items: FramerItem[] = [];
    let buf = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let pos = 0;
    for (;;) {
      const end = buf.indexOf(DC4, pos);
      if (end < 0) break;
      if (this.overlong) {
        this.overlong = false;
        this.skipped += end - pos;
        items.push({ kind: 'rejected', reason: 'oversize', raw: Buffer.from(buf.subarray(pos, end + 1)) });
      } else {
        const item = this.line(buf, pos, end);
        if (item) items.push(item);
      }
      pos = end + 1;
    }
    buf = buf.subarray(pos);
    if (this.overlong) {
      this.skipped += buf.length;
      buf = buf.subarray(buf.length);
    } else if (buf.length > this.maxLineBytes) {
      this.overlong = true;
      this.skipped += buf.length;
      buf = buf.subarray(buf.length);
    }
    // Copy the tail so a large chunk is not kept alive by a small remainder.
    this.pending = buf.length === 0 ? Buffer.alloc(0) : Buffer.from(buf);
    return items;
  }

  /** One DC4-terminated line [from, end): filler stripped, resynchronised onto a known message when there is one. */
  private line(buf: Buffer, from: number, end: number): FramerItem | null {
    let start = from;
    while (start < end && FILLER.has(buf[start]!)) start++;
    if (start === end) return null;
    if (end - start > this.maxLineBytes) {
      this.skipped += end - start;
      return { kind: 'rejected', reason: 'oversize', raw: Buffer.from(buf.subarray(start, end + 1)) };
    }
    if (decodeKnown(buf.toString('latin1', start, end)) === null) {
      for (let i = start + 1; i < end; i++) {
        if (!MESSAGE_STARTS.has(buf[i]!) || decodeKnown(buf.toString('latin1', i, end)) === null) continue;
        this.skipped += i - start;
        start = i;
        break;
      }
    }
    const raw = Buffer.from(buf.subarray(start, end + 1));
    return { kind: 'frame', body: raw.subarray(0, raw.length - 1), raw };
  }
}
