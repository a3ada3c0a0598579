/**
 * Signing of webhook POSTs (docs/outputs.md §Verifying a webhook), pure:
 *   X-Vigil-Timestamp: <unix seconds when the POST was sent>
 *   X-Vigil-Signature: sha256=<lower-case hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>
 * The timestamp is inside the MAC, so a receiver that refuses timestamps older than a few minutes refuses a
 * replayed POST; each retransmission is signed afresh with its own timestamp. Duplicates within the window
 * (at-least-once delivery) carry the same event ids, by which the receiver de-duplicates.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-vigil-signature';
export const TIMESTAMP_HEADER = 'x-vigil-timestamp';
export const EVENT_ID_HEADER = 'x-vigil-event-id';
/** What docs/outputs.md recommends receivers accept (seconds either side of their clock). */
export const RECOMMENDED_TOLERANCE_S = 300;

export function signWebhook(secret: string, timestampS: number, body: Buffer): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  mac.update(`${timestampS}.`, 'utf8');
  mac.update(body);
  return `sha256=${mac.digest('hex')}`;
}

/**
 * A receiver's check, as docs/outputs.md describes it (used by the tests and usable as a reference):
 * constant-time comparison, and a timestamp within `toleranceS` of `nowS`.
 */
export function verifyWebhook(
  secret: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  body: Buffer,
  nowS: number,
  toleranceS = RECOMMENDED_TOLERANCE_S,
): 'ok' | 'bad-signature' | 'stale' {
  const timestamp = Number(headers.timestamp);
  if (!headers.signature || !/^\d{1,12}$/.test(headers.timestamp ?? '')) return 'bad-signature';
  const expected = Buffer.from(signWebhook(secret, timestamp, body));
  const given = Buffer.from(headers.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad-signature';
  return Math.abs(nowS - timestamp) <= toleranceS ? 'ok' : 'stale';
}
