/**
 * The backup file (docs/backup.md "File format"), pure: no I/O here.
 *
 *   magic "VGLBKP01" | u32 BE header length | header (JSON, UTF-8) | AES-256-GCM ciphertext | 16-byte tag
 *
 * The header is readable without the passphrase (what a technician needs to pick the right file: box,
 * version, date) and is authenticated as the cipher's additional data, so it cannot be altered either.
 * The key comes from the passphrase through scrypt (RFC 7914); a separate key-check value tells a wrong
 * passphrase from a damaged file before anything is decrypted.
 */
import { createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { VigilError } from '../core/errors.js';

export const BACKUP_MAGIC = Buffer.from('VGLBKP01', 'latin1');
export const BACKUP_FORMAT = 1;
export const TAG_BYTES = 16;
/** A backup holds every secret of the box: a passphrase shorter than this is refused. */
export const MIN_PASSPHRASE_LENGTH = 12;
const MAX_HEADER_BYTES = 64 * 1024;
// scrypt cost: 32 MiB and about a second on a Pi 3, once per backup or restore.
const SCRYPT = { n: 32768, r: 8, p: 1 } as const;
/**
 * The most a header may ask of scrypt (memory 128·n·r, time also ×p): twice today's memory, two lanes.
 * A crafted header asking for gigabytes or hours is damaged, not obeyed: an upload must not take the box down.
 */
const MAX_KDF_MEMORY_BYTES = 64 * 1024 ** 2;
const MAX_KDF_P = 2;
const KEY_CHECK_LABEL = 'vigil backup key check';

export interface BackupHeader {
  readonly format: number;
  readonly app_version: string;
  readonly schema_version: number;
  /**
   * The store's floor (docs/store.md "Data across versions"): the oldest store version whose Vigil can use
   * it. A Vigil that knows fewer migrations restores it iff it knows this version, the rule it opens a store
   * by after a rollback. Absent in backups made before it was recorded: schema_version counts then.
   */
  readonly readable_from?: number;
  readonly instance_id: string;
  readonly instance_name: string;
  readonly created_at: string;
  /** The event journal is inside (events and their high-water mark); without it only what rebuilds the box. */
  readonly journal: boolean;
  readonly kdf: {
    readonly name: 'scrypt';
    readonly n: number;
    readonly r: number;
    readonly p: number;
    readonly salt: string;
  };
  readonly cipher: 'aes-256-gcm';
  readonly iv: string;
  readonly key_check: string;
}

export type HeaderFacts = Pick<
  BackupHeader,
  'app_version' | 'schema_version' | 'instance_id' | 'instance_name' | 'created_at' | 'journal'
>;

export interface BackupKeys {
  readonly cipherKey: Buffer;
  readonly header: BackupHeader;
}

function backupError(message: string): VigilError {
  return new VigilError('BAD_BACKUP', message);
}

export function checkPassphrase(passphrase: string): void {
  if (passphrase.length < MIN_PASSPHRASE_LENGTH) {
    throw new VigilError('BAD_PASSPHRASE', `the passphrase must be at least ${MIN_PASSPHRASE_LENGTH} characters`);
  }
}

/** scrypt in libuv's thread pool: about a second on a Pi 3 that the gateway's main thread does not wait in. */
async function deriveKeys(
  passphrase: string,
  kdf: BackupHeader['kdf'],
): Promise<{ cipherKey: Buffer; keyCheck: Buffer }> {
  const salt = Buffer.from(kdf.salt, 'base64');
  const material = await new Promise<Buffer>((resolve, reject) =>
    scrypt(
      passphrase.normalize('NFC'),
      salt,
      64,
      { N: kdf.n, r: kdf.r, p: kdf.p, maxmem: 256 * kdf.n * kdf.r },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );
  const cipherKey = material.subarray(0, 32);
  const keyCheck = createHmac('sha256', material.subarray(32)).update(KEY_CHECK_LABEL).digest();
  return { cipherKey, keyCheck };
}

/** A new header with a fresh salt and IV, and the key to encrypt under it. */
export async function newBackupKeys(
  passphrase: string,
  facts: HeaderFacts & Pick<BackupHeader, 'readable_from'>,
): Promise<BackupKeys> {
  checkPassphrase(passphrase);
  const kdf = { name: 'scrypt' as const, ...SCRYPT, salt: randomBytes(16).toString('base64') };
  const { cipherKey, keyCheck } = await deriveKeys(passphrase, kdf);
  const header: BackupHeader = {
    format: BACKUP_FORMAT,
    ...facts,
    kdf,
    cipher: 'aes-256-gcm',
    iv: randomBytes(12).toString('base64'),
    key_check: keyCheck.toString('base64'),
  };
  return { cipherKey, header };
}

/** The bytes before the ciphertext; they are also the cipher's additional authenticated data. */
export function encodePreamble(header: BackupHeader): Buffer {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  return Buffer.concat([BACKUP_MAGIC, length, json]);
}

/** Reads the preamble from the file's first bytes; `head` must hold at least the whole preamble. */
export function decodePreamble(head: Buffer): { header: BackupHeader; preamble: Buffer } {
  if (head.length < BACKUP_MAGIC.length + 4 || !head.subarray(0, BACKUP_MAGIC.length).equals(BACKUP_MAGIC)) {
    throw backupError('not a Vigil backup file');
  }
  const length = head.readUInt32BE(BACKUP_MAGIC.length);
  const end = BACKUP_MAGIC.length + 4 + length;
  if (length === 0 || length > MAX_HEADER_BYTES || head.length < end)
    throw backupError('the backup file is truncated or damaged (header)');
  let header: BackupHeader;
  try {
    header = JSON.parse(head.subarray(BACKUP_MAGIC.length + 4, end).toString('utf8')) as BackupHeader;
  } catch {
    throw backupError('the backup file is damaged (header is not JSON)');
  }
  if (header.format !== BACKUP_FORMAT)
    throw backupError(`backup format ${String(header.format)} is not one this Vigil reads (${BACKUP_FORMAT})`);
  const kdf = header.kdf;
  const sane =
    header.cipher === 'aes-256-gcm' &&
    kdf?.name === 'scrypt' &&
    Number.isInteger(kdf.n) &&
    kdf.n >= 1024 &&
    kdf.n <= 1_048_576 &&
    (kdf.n & (kdf.n - 1)) === 0 &&
    Number.isInteger(kdf.r) &&
    kdf.r >= 1 &&
    kdf.r <= 32 &&
    Number.isInteger(kdf.p) &&
    kdf.p >= 1 &&
    kdf.p <= MAX_KDF_P &&
    128 * kdf.n * kdf.r <= MAX_KDF_MEMORY_BYTES &&
    typeof kdf.salt === 'string' &&
    typeof header.iv === 'string' &&
    typeof header.key_check === 'string' &&
    typeof header.instance_id === 'string' &&
    Number.isInteger(header.schema_version) &&
    (header.readable_from === undefined ||
      (Number.isInteger(header.readable_from) &&
        header.readable_from >= 1 &&
        header.readable_from <= header.schema_version));
  if (!sane) throw backupError('the backup file is damaged (header fields)');
  return { header, preamble: head.subarray(0, end) };
}

/** The cipher key for a header; a wrong passphrase is told apart from a damaged file here. */
export async function openBackupKeys(passphrase: string, header: BackupHeader): Promise<Buffer> {
  const { cipherKey, keyCheck } = await deriveKeys(passphrase, header.kdf);
  const stored = Buffer.from(header.key_check, 'base64');
  if (stored.length !== keyCheck.length || !timingSafeEqual(stored, keyCheck)) {
    throw new VigilError('BAD_PASSPHRASE', 'wrong passphrase for this backup');
  }
  return cipherKey;
}
