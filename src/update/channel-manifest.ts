/**
 * The update channel's manifest (docs/updates.md "The update channel"), once its signature verified
 * (channel-signature.ts): pure checks, in the order a box applies them.
 *
 *   {"format":"vigil-channel-1","compatible":"vigil-rpi-arm64","serial":12,
 *    "issued_at":"2026-11-28T10:00:00Z","expires_at":"2026-12-05T10:00:00Z",
 *    "version":"0.2.0","bundle_url":"vigil-0.2.0-arm64.raucb",
 *    "waves":[{"from":"2026-11-28T10:00:00Z","percent":5},{"from":"2026-11-29T10:00:00Z","percent":25}]}
 *
 * - `compatible` must be this box's (a manifest for another board family is refused);
 * - `expires_at` bounds how long a signed manifest counts: a server (or someone in the path) that keeps
 *   serving an old one cannot hold a box on it, nor hide a stop, for longer than that;
 * - `serial` only grows: a box keeps the highest it accepted and refuses a lower one (a replay), or the
 *   same serial with other content;
 * - `bundle_url` is resolved against the manifest's own URL (a static server: both side by side);
 * - `waves`: the current wave is the last whose `from` has passed; its `percent` of boxes install.
 */
import { createHash } from 'node:crypto';
import { UPDATE_COMPATIBLE } from './compatible.js';
import { isVersion } from './versions.js';

export const CHANNEL_FORMAT = 'vigil-channel-1';
/** Longest validity an operator may sign: a manifest that never expires would defeat the expiry. */
export const MAX_VALIDITY_DAYS = 90;

export interface Wave {
  readonly from: string;
  readonly percent: number;
}

export interface ChannelManifest {
  readonly serial: number;
  readonly issued_at: string;
  readonly expires_at: string;
  readonly version: string;
  /** Absolute: resolved against the manifest's URL. */
  readonly bundle_url: string;
  readonly waves: readonly Wave[];
  /** SHA-256 of the signed content: the same serial must always carry the same content. */
  readonly digest: string;
}

export type ManifestRefusalCode = 'BAD_MANIFEST' | 'WRONG_COMPATIBLE' | 'EXPIRED' | 'NOT_YET_VALID' | 'REPLAYED';

export type ManifestCheck =
  | { readonly ok: true; readonly manifest: ChannelManifest }
  | { readonly ok: false; readonly code: ManifestRefusalCode; readonly message: string };

/** What the box remembers of the newest manifest it accepted (the store's meta). */
export interface AcceptedSerial {
  readonly serial: number;
  readonly digest: string;
}

const refuse = (code: ManifestRefusalCode, message: string): ManifestCheck => ({ ok: false, code, message });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function time(value: unknown): number | null {
  if (typeof value !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(value))
    return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

function parseWaves(value: unknown): Wave[] | string {
  if (!Array.isArray(value) || value.length === 0 || value.length > 20) return 'waves must list 1 to 20 waves';
  const waves: Wave[] = [];
  let last = Number.NEGATIVE_INFINITY;
  for (const [i, wave] of value.entries()) {
    if (!isObject(wave)) return `waves[${i}] must be an object`;
    const from = time(wave.from);
    if (from === null) return `waves[${i}].from must be an ISO 8601 time with its zone`;
    if (from <= last) return 'waves must be in the order of their times';
    last = from;
    const percent = wave.percent;
    if (typeof percent !== 'number' || !Number.isInteger(percent) || percent < 0 || percent > 100)
      return `waves[${i}].percent must be a whole number from 0 to 100`;
    waves.push({ from: wave.from as string, percent });
  }
  return waves;
}

/**
 * Checks the signed content of a manifest fetched from `manifestUrl` at `now`, against the highest
 * serial this box accepted before (null: none yet).
 */
export function checkManifest(
  content: Buffer,
  manifestUrl: string,
  now: number,
  accepted: AcceptedSerial | null,
): ManifestCheck {
  let value: unknown;
  try {
    value = JSON.parse(content.toString('utf8'));
  } catch {
    return refuse('BAD_MANIFEST', 'the signed content is not JSON');
  }
  if (!isObject(value)) return refuse('BAD_MANIFEST', 'the manifest is not a JSON object');
  if (value.format !== CHANNEL_FORMAT)
    return refuse('BAD_MANIFEST', `the manifest's format is not "${CHANNEL_FORMAT}"`);
  if (value.compatible !== UPDATE_COMPATIBLE)
    return refuse(
      'WRONG_COMPATIBLE',
      `the manifest is for "${String(value.compatible)}", this box is "${UPDATE_COMPATIBLE}"`,
    );
  const serial = value.serial;
  if (typeof serial !== 'number' || !Number.isSafeInteger(serial) || serial < 1)
    return refuse('BAD_MANIFEST', 'serial must be a whole number from 1');
  const issued = time(value.issued_at);
  const expires = time(value.expires_at);
  if (issued === null || expires === null)
    return refuse('BAD_MANIFEST', 'issued_at and expires_at must be ISO 8601 times with their zone');
  if (expires <= issued || expires - issued > MAX_VALIDITY_DAYS * 86_400_000)
    return refuse('BAD_MANIFEST', `expires_at must be after issued_at, by at most ${MAX_VALIDITY_DAYS} days`);
  if (typeof value.version !== 'string' || !isVersion(value.version))
    return refuse('BAD_MANIFEST', 'version must be a version such as 0.2.0');
  if (typeof value.bundle_url !== 'string' || value.bundle_url.length === 0 || value.bundle_url.length > 2048)
    return refuse('BAD_MANIFEST', 'bundle_url must name the bundle');
  let bundleUrl: URL;
  try {
    bundleUrl = new URL(value.bundle_url, manifestUrl);
  } catch {
    return refuse('BAD_MANIFEST', 'bundle_url is not a URL');
  }
  if (bundleUrl.protocol !== 'https:' && bundleUrl.protocol !== 'http:')
    return refuse('BAD_MANIFEST', 'bundle_url must be an http(s) URL');
  const waves = parseWaves(value.waves);
  if (typeof waves === 'string') return refuse('BAD_MANIFEST', waves);

  const digest = createHash('sha256').update(content).digest('hex');
  // Replays first: an old manifest is refused as what it is, whatever its dates say.
  if (accepted && (serial < accepted.serial || (serial === accepted.serial && digest !== accepted.digest)))
    return refuse(
      'REPLAYED',
      serial < accepted.serial
        ? `serial ${serial} is older than the newest this box accepted (${accepted.serial}): a replayed manifest`
        : `serial ${serial} was accepted before with other content: a replayed or altered manifest`,
    );
  if (now >= expires) return refuse('EXPIRED', `the manifest expired at ${value.expires_at}`);
  // A clock an hour behind (no NTP yet) still takes a manifest signed just now.
  if (issued - now > 3_600_000)
    return refuse('NOT_YET_VALID', `the manifest is issued at ${value.issued_at}, later than this box's clock`);
  return {
    ok: true,
    manifest: {
      serial,
      issued_at: value.issued_at as string,
      expires_at: value.expires_at as string,
      version: value.version,
      bundle_url: bundleUrl.href,
      waves,
      digest,
    },
  };
}

/** The percent of boxes the manifest lets install at `now`: the last wave whose time has come; 0 before the first. */
export function currentWavePercent(waves: readonly Wave[], now: number): number {
  let percent = 0;
  for (const wave of waves) if (Date.parse(wave.from) <= now) percent = wave.percent;
  return percent;
}

/**
 * This box's place in every rollout, 0 ≤ bucket < 100, from its instance id alone: the same boxes go
 * first in every release (the operator watches those), and the spread is even across a fleet.
 */
export function waveBucket(instanceId: string): number {
  const hash = createHash('sha256').update(`vigil-wave:${instanceId}`).digest();
  return (hash.readUInt32BE(0) / 2 ** 32) * 100;
}
