/**
 * The plain-text replies of the /api/system paths that the page's upload script receives too
 * (POST /system/restore and /system/update answer exactly as their API endpoints): the backup
 * passphrase header, and a refusal as `CODE: message` with its status (docs/backup.md "API",
 * docs/updates.md "Refusals").
 */
import type { Context } from 'hono';
import type { Refusal } from '../services/backup-service.js';
import type { UpdateRefusal, UpdateRefusalCode } from '../update/installer.js';
import { PAYLOAD_TOO_LARGE } from './responses.js';

export const PASSPHRASE_HEADER = 'X-Vigil-Backup-Passphrase';

/**
 * The header as the caller's UTF-8 bytes: HTTP hands header values over as Latin-1 (RFC 9110 §5.5),
 * curl sends a UTF-8 passphrase as its bytes, and the page's script encodes it the same way.
 */
export function readPassphrase(c: Context): string {
  const raw = c.req.header(PASSPHRASE_HEADER) ?? '';
  return Buffer.from(raw, 'latin1').toString('utf8');
}

/** A refusal as plain text `CODE: message` (the page's upload script shows the same text). */
export function refusalResponse(c: Context, refusal: Refusal): Response {
  if (refusal.code === 'TOO_LARGE') return c.text(PAYLOAD_TOO_LARGE, 413);
  return c.text(`${refusal.code}: ${refusal.message}`, refusal.code === 'NO_SPACE' ? 507 : 400);
}

/** HTTP status of each refusal (docs/updates.md "Refusals"). */
export const REFUSAL_STATUS: Readonly<Record<UpdateRefusalCode, 400 | 409 | 413 | 500 | 503 | 507>> = {
  UPDATE_UNAVAILABLE: 503,
  UPDATE_BUSY: 409,
  UNCONFIRMED: 409,
  NO_BUNDLE: 400,
  TOO_LARGE: 413,
  NO_SPACE: 507,
  UNSIGNED: 400,
  BAD_SIGNATURE: 400,
  BAD_BUNDLE: 400,
  CORRUPTED: 400,
  WRONG_COMPATIBLE: 400,
  OLDER: 400,
  INSTALL_FAILED: 500,
};

export function updateRefusalResponse(c: Context, refusal: UpdateRefusal): Response {
  if (refusal.code === 'TOO_LARGE') return c.text(PAYLOAD_TOO_LARGE, 413);
  return c.text(`${refusal.code}: ${refusal.message}`, REFUSAL_STATUS[refusal.code]);
}
