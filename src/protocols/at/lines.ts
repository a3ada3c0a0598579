/**
 * Splits a modem's byte stream into response lines (ITU-T V.250 §5.7: each information text and
 * result code is framed by <CR><LF>; echo ends with <CR>). Empty lines are dropped. A line that
 * grows past MAX_LINE without a terminator is dropped and counted (garbage never blocks the
 * line). Pure: bytes in, lines out.
 */

export const MAX_LINE = 1024;
const CR = 0x0d;
const LF = 0x0a;

export class AtLineSplitter {
  private partial = '';
  private skipping = false;
  /** Lines dropped for exceeding MAX_LINE. */
  overlong = 0;

  push(chunk: Uint8Array): string[] {
    const out: string[] = [];
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b !== CR && b !== LF) continue;
      this.take(chunk, start, i, out, true);
      start = i + 1;
    }
    this.take(chunk, start, chunk.length, out, false);
    return out;
  }

  reset(): void {
    this.partial = '';
    this.skipping = false;
  }

  private take(chunk: Uint8Array, from: number, to: number, out: string[], ended: boolean): void {
    if (to > from && !this.skipping)
      this.partial += Buffer.from(chunk.buffer, chunk.byteOffset + from, to - from).toString('latin1');
    if (this.partial.length > MAX_LINE) {
      this.partial = '';
      if (!this.skipping) this.overlong++;
      this.skipping = true;
    }
    if (!ended) return;
    if (!this.skipping) {
      const line = this.partial.trim();
      if (line.length > 0) out.push(line);
    }
    this.partial = '';
    this.skipping = false;
  }
}
