/**
 * The plaintext inside a backup (docs/backup.md "File format"), pure: a run of entries, each
 * `u16 BE name length | name | u64 BE size | bytes`, closed by a zero name length. Only the names below
 * exist: a restore writes nothing else, so a crafted name cannot reach outside the data dir.
 */
import { VigilError } from '../core/errors.js';
import { STORE_FILE } from '../store/store-path.js';

/** Paths relative to the data dir, in the order they are written. */
export const ENTRY_NAMES = [STORE_FILE, 'tls/key.pem', 'tls/cert.pem'] as const;
export type EntryName = (typeof ENTRY_NAMES)[number];

const MAX_ENTRY_BYTES = 2n ** 40n;

export function entryHead(name: EntryName, size: number): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  const head = Buffer.alloc(2 + nameBytes.length + 8);
  head.writeUInt16BE(nameBytes.length, 0);
  nameBytes.copy(head, 2);
  head.writeBigUInt64BE(BigInt(size), 2 + nameBytes.length);
  return head;
}

export const END_OF_ENTRIES = Buffer.alloc(2);

export type EntryPiece =
  | { readonly kind: 'start'; readonly name: EntryName; readonly size: number }
  | { readonly kind: 'data'; readonly bytes: Buffer }
  | { readonly kind: 'end' }
  | { readonly kind: 'done' };

function damaged(what: string): VigilError {
  return new VigilError('BAD_BACKUP', `the backup file is damaged (${what})`);
}

/** Splits decrypted bytes into entries, whatever the chunking. */
export class EntrySplitter {
  private pending = Buffer.alloc(0);
  private remaining: bigint | null = null;
  private finished = false;

  push(chunk: Buffer): EntryPiece[] {
    const pieces: EntryPiece[] = [];
    let buf = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    for (;;) {
      if (this.finished) {
        if (buf.length > 0) throw damaged('bytes after the last entry');
        break;
      }
      if (this.remaining !== null) {
        if (this.remaining === 0n) {
          pieces.push({ kind: 'end' });
          this.remaining = null;
          continue;
        }
        if (buf.length === 0) break;
        const take = Number(this.remaining < BigInt(buf.length) ? this.remaining : BigInt(buf.length));
        pieces.push({ kind: 'data', bytes: buf.subarray(0, take) });
        this.remaining -= BigInt(take);
        buf = buf.subarray(take);
        continue;
      }
      if (buf.length < 2) break;
      const nameLength = buf.readUInt16BE(0);
      if (nameLength === 0) {
        this.finished = true;
        pieces.push({ kind: 'done' });
        buf = buf.subarray(2);
        continue;
      }
      if (buf.length < 2 + nameLength + 8) break;
      const name = buf.subarray(2, 2 + nameLength).toString('utf8');
      if (!(ENTRY_NAMES as readonly string[]).includes(name)) throw damaged(`unknown entry '${name.slice(0, 40)}'`);
      const size = buf.readBigUInt64BE(2 + nameLength);
      if (size > MAX_ENTRY_BYTES) throw damaged('entry size');
      pieces.push({ kind: 'start', name: name as EntryName, size: Number(size) });
      this.remaining = size;
      buf = buf.subarray(2 + nameLength + 8);
    }
    this.pending = Buffer.from(buf);
    return pieces;
  }

  /** Throws unless the entries ended cleanly. */
  finish(): void {
    if (!this.finished || this.pending.length > 0) throw damaged('it ends inside an entry');
  }
}
