/**
 * Cross-field rules of webhook outputs (type 4, docs/outputs.md §Webhook), run on the merged settings:
 * type 4 and protocol "JSON" go together, the URL is valid, the secret is set, the retry bounds are in order.
 */
import { isPrintableAscii } from './fields.js';
import { line } from './issues.js';
import { OUTPUT_TYPES, type OutputSettings } from './schema-outputs.js';
import { parseWebhookUrl } from './webhook-url.js';

/** HMAC-SHA256 keys shorter than this are guessable offline from one signed body (decision, docs/settings.md). */
export const WEBHOOK_SECRET_MIN = 16;
export const WEBHOOK_SECRET_MAX = 256;

export function checkWebhookOutput(o: OutputSettings, at: string): string[] {
  const out: string[] = [];
  const webhook = o.type === OUTPUT_TYPES.webhook;
  // JSON also runs over the TCP server (type 5, docs/outputs.md §JSON server).
  if (o.type !== OUTPUT_TYPES.tcp_server && webhook !== (o.protocol === 'JSON')) {
    out.push(
      line(
        webhook ? `${at}.protocol` : `${at}.type`,
        webhook
          ? 'must be "JSON" for a webhook output (type 4)'
          : 'must be 4 (webhook) or 5 (TCP server) when protocol is "JSON"',
      ),
    );
  }
  if (!webhook) {
    if (o.webhook !== undefined) out.push(line(`${at}.webhook`, 'only allowed when type is 4 (webhook)'));
    return out;
  }
  const url = parseWebhookUrl(o.identificator);
  if (!url.ok) out.push(line(`${at}.identificator`, url.reason));
  if (o.serial !== undefined) out.push(line(`${at}.serial`, 'only allowed when type is 3 (serial COM)'));
  if (o.sia_dc09 !== undefined) out.push(line(`${at}.sia_dc09`, 'only allowed when protocol is "SIA-DC09"'));
  const w = o.webhook;
  if (!w) return out;
  if (w.secret.length < WEBHOOK_SECRET_MIN || w.secret.length > WEBHOOK_SECRET_MAX || !isPrintableAscii(w.secret)) {
    out.push(
      line(`${at}.webhook.secret`, `must be ${WEBHOOK_SECRET_MIN} to ${WEBHOOK_SECRET_MAX} printable ASCII characters`),
    );
  }
  if (w.retry_max_ms < w.retry_min_ms)
    out.push(line(`${at}.webhook.retry_max_ms`, 'must not be less than retry_min_ms'));
  if (w.ca_file !== '') {
    if (!w.ca_file.startsWith('/')) out.push(line(`${at}.webhook.ca_file`, 'must be an absolute path'));
    if (url.ok && url.url.protocol !== 'https:')
      out.push(line(`${at}.webhook.ca_file`, 'only allowed with an https:// URL'));
  }
  return out;
}
