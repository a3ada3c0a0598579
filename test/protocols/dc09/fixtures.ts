/** Shared fixtures for the DC-09 codec tests. */
import { createCipheriv } from 'node:crypto';
import type { HandlerContext } from '../../../src/protocols/dc09/handler.js';
export { prng } from '../../helpers/prng.js';

/** 2026-01-01 12:00:00 UTC. */
export const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

/** A pad source that always yields zero bytes: pad characters become '!' (first of the pad alphabet). */
export const zeroBytes = (n: number): Buffer => Buffer.alloc(n);

/** The body inside a complete frame (between the 9-byte header and CR). */
export function bodyOf(frame: Buffer): Buffer {
  return frame.subarray(9, frame.length - 1);
}

export function latin1(buf: Buffer | null | undefined): string {
  return buf ? buf.toString('latin1') : '';
}

export function ctx(over: Partial<HandlerContext> = {}): HandlerContext {
  return {
    now: NOW,
    key: null,
    requireEncryption: false,
    checkPlainTimestamps: false,
    acceptLocalTime: false,
    randomBytes: zeroBytes,
    ...over,
  };
}

/** Independent AES-CBC/zero-IV encryption of exact plaintext (no pad added), upper-case hex. */
export function aesHex(plain: string, key: Buffer): string {
  const cipher = createCipheriv(`aes-${key.length * 8}-cbc`, key, Buffer.alloc(16));
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(Buffer.from(plain, 'latin1')), cipher.final()])
    .toString('hex')
    .toUpperCase();
}

/** Independent bit-by-bit CRC-16/ARC (the codec uses a table). */
export function bitwiseCrc(data: Buffer): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}
