/**
 * DC-09 framing (SIA DC-09 §5.5.1): <LF><crc><0LLL><body><CR>, where
 *   crc  = 4 hex characters, CRC-16/ARC of the body (§5.5.1.2),
 *   0LLL = '0' then the body length as 3 hex characters (§5.5.1.3),
 *   body = from the opening '"' of the ID token through the timestamp (CRC and length cover exactly this).
 * TCP is a stream, so the framer never assumes one read = one frame. It resyncs on LF, never throws, and keeps at
 * most one incomplete frame (bounded by maxBodyBytes) in memory.
 */
import { VigilError } from '../../core/errors.js';
import { crc16Arc } from './crc.js';

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
/** LF + 4 CRC characters + '0' + 3 length characters. */
const HEADER_BYTES = 9;
/** The length field has three hex digits (§5.5.1.3). */
export const MAX_BODY_BYTES = 0xfff;
/** '0'-'9', 'A'-'F' as bytes: CRC and length are upper-case hex (§5.5.1.2, §5.5.1.3). */
const HEX_UPPER = Buffer.from('0123456789ABCDEF', 'latin1');

export type RejectReason = 'crc' | 'length' | 'format' | 'oversize';

/**
 * Deviations from §5.5.1 that real panels show and a receiver may tolerate (docs/dc09.md "Tolerances"):
 *   binary-crc     the CRC as two raw bytes (high byte first) instead of four hex characters;
 *   cr-counted     the closing CR counted in the length and covered by the CRC;
 *   trailing-bytes NUL, CR or space after the closing CR of a datagram.
 */
export type FrameQuirk = 'binary-crc' | 'cr-counted' | 'trailing-bytes';

/** Which frame-level deviations to accept; absent = none (the standard's letter). */
export interface FrameTolerances {
  binaryCrc?: boolean;
  crCounted?: boolean;
  trailingBytes?: boolean;
}

/** How a reply is framed: the standard's form unless the panel's frame used another (answer in its form). */
export interface FrameForm {
  binaryCrc?: boolean;
  crCounted?: boolean;
}

export type FramerItem =
  | { kind: 'frame'; body: Buffer; raw: Buffer; quirks?: FrameQuirk[] }
  | { kind: 'rejected'; reason: RejectReason; raw: Buffer };

/**
 * Builds a complete frame around a body that starts with the ID token's '"'. The frame is written into one buffer
 * (body at its place, then CRC and length in front): every reply goes through here.
 */
export function encodeFrame(body: Buffer | string): Buffer {
  let out: Buffer;
  let length: number;
  if (typeof body === 'string' && isLatin1(body)) {
    length = body.length;
    checkBodyLength(length);
    out = Buffer.allocUnsafe(HEADER_BYTES + length + 1);
    out.write(body, HEADER_BYTES, length, 'latin1');
  } else {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    length = bytes.length;
    checkBodyLength(length);
    out = Buffer.allocUnsafe(HEADER_BYTES + length + 1);
    out.set(bytes, HEADER_BYTES);
  }
  const crc = crc16Arc(out.subarray(HEADER_BYTES, HEADER_BYTES + length));
  out[0] = LF;
  out[1] = HEX_UPPER[(crc >>> 12) & 0xf]!;
  out[2] = HEX_UPPER[(crc >>> 8) & 0xf]!;
  out[3] = HEX_UPPER[(crc >>> 4) & 0xf]!;
  out[4] = HEX_UPPER[crc & 0xf]!;
  out[5] = 0x30; // '0' then three hex digits of the length (§5.5.1.3)
  out[6] = HEX_UPPER[(length >>> 8) & 0xf]!;
  out[7] = HEX_UPPER[(length >>> 4) & 0xf]!;
  out[8] = HEX_UPPER[length & 0xf]!;
  out[HEADER_BYTES + length] = CR;
  return out;
}

function checkBodyLength(length: number): void {
  if (length > MAX_BODY_BYTES) {
    throw new VigilError('FRAME_INVALID', `DC-09 body of ${length} bytes exceeds the 0LLL limit of ${MAX_BODY_BYTES}`);
  }
}

function isLatin1(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return false;
  return true;
}

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57; // lower case accepted from transmitters
  return -1;
}

/** Index of the first byte in the header (after LF) that cannot belong there, or -1. */
function badHeaderByte(buf: Buffer, start: number, end: number): number {
  const stop = Math.min(end, start + HEADER_BYTES);
  for (let i = start + 1; i < stop; i++) {
    const ok = i === start + 5 ? buf[i] === 0x30 : hexValue(buf[i]!) >= 0;
    if (!ok) return i;
  }
  return -1;
}

function readHex(buf: Buffer, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) value = value * 16 + hexValue(buf[i]!);
  return value;
}

type Step = { kind: 'wait' } | { kind: 'item'; item: FramerItem; next: number };

/**
 * Examines the frame starting at buf[start] (an LF). Shared by the stream framer and the datagram decoder.
 * A CR or LF inside the announced body means the length is wrong: rejecting early avoids stalling a TCP session
 * until maxBodyBytes arrive (the body never contains CR or LF: it is printable text or hex).
 */
function step(buf: Buffer, start: number, maxBody: number, tol: FrameTolerances | undefined): Step {
  const bad = badHeaderByte(buf, start, buf.length);
  if (bad >= 0) {
    // Strict first: the binary-CRC reading is tried only once the standard one has failed.
    if (tol?.binaryCrc) {
      const binary = binaryStep(buf, start, maxBody, tol);
      if (binary !== null) return binary;
    }
    const next = buf[bad] === LF ? bad : bad + 1;
    return { kind: 'item', item: rejected('format', buf, start, next), next };
  }
  if (buf.length - start < HEADER_BYTES) return { kind: 'wait' };
  const length = readHex(buf, start + 6, 3);
  if (length > maxBody)
    return { kind: 'item', item: rejected('oversize', buf, start, start + HEADER_BYTES), next: start + 1 };
  const bodyStart = start + HEADER_BYTES;
  const end = bodyStart + length;
  const scanStop = Math.min(buf.length, end + 1);
  for (let i = bodyStart; i < scanStop; i++) {
    const byte = buf[i];
    if (byte !== CR && byte !== LF) continue;
    if (i === end && byte === CR) return finish(buf, start, bodyStart, end);
    if (tol?.crCounted && byte === CR && i === end - 1) {
      const counted = finishTolerant(buf, start, bodyStart, i, readHex(buf, start + 1, 4), ['cr-counted']);
      if (counted !== null) return counted;
    }
    const next = byte === CR ? i + 1 : i;
    return { kind: 'item', item: rejected('length', buf, start, next), next };
  }
  if (buf.length > end) return { kind: 'item', item: rejected('length', buf, start, end + 1), next: start + 1 };
  return { kind: 'wait' };
}

function finish(buf: Buffer, start: number, bodyStart: number, end: number): Step {
  const next = end + 1;
  if (end === bodyStart || buf[bodyStart] !== QUOTE)
    return { kind: 'item', item: rejected('format', buf, start, next), next };
  if (crc16Arc(buf.subarray(bodyStart, end)) !== readHex(buf, start + 1, 4)) {
    return { kind: 'item', item: rejected('crc', buf, start, next), next };
  }
  // One copy per frame: the body is a view into the frame's own copy (the socket chunk is not kept alive).
  const raw = Buffer.from(buf.subarray(start, next));
  return { kind: 'item', item: { kind: 'frame', body: raw.subarray(bodyStart - start, end - start), raw }, next };
}

/**
 * The frame at buf[start] read with a binary CRC: <LF><crc hi><crc lo><0LLL><body><CR> (Trikdis DC-09_2012,
 * docs/dc09.md "Tolerances"). Null when it is not such a frame (the strict rejection stands); 'wait' while it
 * may still become one. Unambiguous: a standard frame has a hex digit where this form has the body's '"'.
 */
function binaryStep(buf: Buffer, start: number, maxBody: number, tol: FrameTolerances): Step | null {
  const have = buf.length - start;
  if (have < 4) return { kind: 'wait' };
  if (buf[start + 3] !== 0x30) return null;
  for (let i = 4; i < 7 && i < have; i++) if (hexValue(buf[start + i]!) < 0) return null;
  if (have < 7) return { kind: 'wait' };
  const length = readHex(buf, start + 4, 3);
  if (length > maxBody) return null;
  const crc = (buf[start + 1]! << 8) | buf[start + 2]!;
  const bodyStart = start + 7;
  const end = bodyStart + length;
  const scanStop = Math.min(buf.length, end + 1);
  for (let i = bodyStart; i < scanStop; i++) {
    const byte = buf[i];
    if (byte !== CR && byte !== LF) continue;
    if (i === end && byte === CR) return finishTolerant(buf, start, bodyStart, i, crc, ['binary-crc']);
    if (tol.crCounted && byte === CR && i === end - 1)
      return finishTolerant(buf, start, bodyStart, i, crc, ['binary-crc', 'cr-counted']);
    return null;
  }
  return buf.length > end ? null : { kind: 'wait' };
}

/**
 * A tolerated frame whose closing CR is at buf[cr]: the CRC covers the body, or the body and the CR (cr-counted).
 * Null when the CRC or the opening '"' does not fit: the frame stays refused.
 */
function finishTolerant(
  buf: Buffer,
  start: number,
  bodyStart: number,
  cr: number,
  crc: number,
  quirks: FrameQuirk[],
): Step | null {
  if (cr === bodyStart || buf[bodyStart] !== QUOTE) return null;
  const crcStop = quirks.includes('cr-counted') ? cr + 1 : cr;
  if (crc16Arc(buf.subarray(bodyStart, crcStop)) !== crc) return null;
  const raw = Buffer.from(buf.subarray(start, cr + 1));
  return {
    kind: 'item',
    item: { kind: 'frame', body: raw.subarray(bodyStart - start, cr - start), raw, quirks },
    next: cr + 1,
  };
}

function rejected(reason: RejectReason, buf: Buffer, from: number, to: number): FramerItem {
  return { kind: 'rejected', reason, raw: Buffer.from(buf.subarray(from, to)) };
}

export class Dc09Framer {
  private readonly maxBodyBytes: number;
  private readonly tolerances: FrameTolerances | undefined;
  private pending: Buffer = Buffer.alloc(0);
  private skipped = 0;

  constructor(maxBodyBytes = MAX_BODY_BYTES, tolerances?: FrameTolerances) {
    this.maxBodyBytes = maxBodyBytes;
    this.tolerances = tolerances;
  }

  /** Bytes held for an incomplete frame (always < maxBodyBytes + 10). */
  get buffered(): number {
    return this.pending.length;
  }

  /** Bytes dropped so far because they were outside any frame (noise between frames). */
  get discardedBytes(): number {
    return this.skipped;
  }

  reset(): void {
    this.pending = Buffer.alloc(0);
  }

  push(chunk: Buffer): FramerItem[] {
    const buf = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const items: FramerItem[] = [];
    let pos = 0;
    while (pos < buf.length) {
      const lf = buf.indexOf(LF, pos);
      if (lf < 0) {
        this.skipped += buf.length - pos;
        pos = buf.length;
        break;
      }
      this.skipped += lf - pos;
      pos = lf;
      const result = step(buf, pos, this.maxBodyBytes, this.tolerances);
      if (result.kind === 'wait') break;
      items.push(result.item);
      pos = result.next;
    }
    // Copy the tail so a large chunk is not kept alive by a small remainder.
    this.pending = pos >= buf.length ? Buffer.alloc(0) : Buffer.from(buf.subarray(pos));
    return items;
  }
}

/**
 * UDP: exactly one frame per datagram; anything before the LF or after the CR rejects the datagram, except, with
 * `trailingBytes`, NUL, CR and space after the CR (the padding some panels send, docs/dc09.md "Tolerances").
 */
export function decodeDatagram(datagram: Buffer, maxBodyBytes = 4096, tolerances?: FrameTolerances): FramerItem {
  if (datagram.length === 0 || datagram[0] !== LF) return rejected('format', datagram, 0, datagram.length);
  const result = step(datagram, 0, maxBodyBytes, tolerances);
  if (result.kind === 'wait') {
    const reason: RejectReason = datagram.length < HEADER_BYTES ? 'format' : 'length';
    return rejected(reason, datagram, 0, datagram.length);
  }
  const item = result.item;
  if (item.kind === 'frame' && result.next !== datagram.length) {
    if (!tolerances?.trailingBytes || !isPadding(datagram, result.next))
      return rejected('length', datagram, 0, datagram.length);
    item.quirks = item.quirks ? [...item.quirks, 'trailing-bytes'] : ['trailing-bytes'];
    return item;
  }
  return item.kind === 'rejected' ? rejected(item.reason, datagram, 0, datagram.length) : item;
}

/** NUL, CR or space only from `from` to the end. */
function isPadding(buf: Buffer, from: number): boolean {
  for (let i = from; i < buf.length; i++) {
    const byte = buf[i];
    if (byte !== 0x00 && byte !== CR && byte !== 0x20) return false;
  }
  return true;
}

/**
 * A standard frame (as encodeFrame builds it) in another form: the CRC as two raw bytes, and/or the CR counted in
 * the length and the CRC. A panel that frames its messages so gets its reply framed the same way.
 */
export function reframe(frame: Buffer, form: FrameForm): Buffer {
  if (!form.binaryCrc && !form.crCounted) return frame;
  const body = frame.subarray(HEADER_BYTES, frame.length - 1);
  const crcLength = body.length + (form.crCounted ? 1 : 0);
  const crcBytes = form.binaryCrc ? 2 : 4;
  const out = Buffer.allocUnsafe(1 + crcBytes + 4 + body.length + 1);
  out[0] = LF;
  out.set(body, 1 + crcBytes + 4);
  out[out.length - 1] = CR;
  const crc = crc16Arc(out.subarray(1 + crcBytes + 4, 1 + crcBytes + 4 + crcLength));
  if (form.binaryCrc) {
    out[1] = crc >>> 8;
    out[2] = crc & 0xff;
  } else {
    for (let i = 0; i < 4; i++) out[1 + i] = HEX_UPPER[(crc >>> (12 - 4 * i)) & 0xf]!;
  }
  out[1 + crcBytes] = 0x30;
  for (let i = 0; i < 3; i++) out[2 + crcBytes + i] = HEX_UPPER[(crcLength >>> (8 - 4 * i)) & 0xf]!;
  return out;
}
