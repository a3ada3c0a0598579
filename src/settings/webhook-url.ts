/**
 * The URL of a webhook output (its `identificator`, docs/outputs.md §Webhook). Exported so the output
 * parses exactly what was validated.
 *   - https, or plain http to a literal loopback address (127.0.0.0/8, [::1]) only: events cross the
 *     network encrypted, and a local integration or a test on the box itself needs no certificate.
 *     "localhost" is refused for http: a name is resolved at send time and /etc/hosts can point it anywhere.
 *   - no user:password part: the URL is shown unmasked in GET /api/settings and in logs; the shared
 *     secret is the webhook's credential.
 *   - no fragment (never sent), at most 2048 characters.
 */
import { isLoopback } from '../core/loopback.js';

export const WEBHOOK_URL_MAX = 2048;

export type WebhookUrl = { ok: true; url: URL } | { ok: false; reason: string };

export function parseWebhookUrl(text: string): WebhookUrl {
  if (text.length > WEBHOOK_URL_MAX) return { ok: false, reason: `must be at most ${WEBHOOK_URL_MAX} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'must be an absolute https:// URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'must be an https:// URL' };
  if (url.hostname === '') return { ok: false, reason: 'must name a host' };
  if (url.username !== '' || url.password !== '')
    return { ok: false, reason: 'must not carry a user name or password (use webhook.secret)' };
  if (url.hash !== '' || text.includes('#')) return { ok: false, reason: 'must not carry a #fragment' };
  if (url.protocol === 'http:' && !isLoopback(hostAddress(url))) {
    return {
      ok: false,
      reason: 'must be https:// (plain http:// only to a loopback address such as 127.0.0.1 or [::1])',
    };
  }
  return { ok: true, url };
}

/** The host as an address literal: URL keeps IPv6 in brackets. */
export function hostAddress(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}
