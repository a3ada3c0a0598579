/**
 * The delivery of a webhook output (type 4, docs/outputs.md §Webhook): the head batch of the outbox handed on by
 * one HTTP(S) POST, signed with the output's shared secret.
 *   - In order, at least once: the head batch (1..batch_size events) is POSTed until an answer is 2xx; only then
 *     does the cursor pass it. A restart re-sends at most what was unflushed; the receiver de-duplicates by id.
 *   - 408, 429, 5xx, a timeout or a connection error: sent again after a wait of retry_min_ms doubling to
 *     retry_max_ms; after `retries` such failures in a row the output is `failed` (internal event
 *     output_failed) and keeps retrying at the same pace; the first 2xx restores it (output_restored).
 *   - Any other answer (3xx, 4xx) is a refusal: the output is `failed` at once with the status code and keeps
 *     retrying with the same backoff. It never skips the event: a refusal is almost always the receiver's
 *     configuration (wrong secret, path, proxy) and applies to every event, so skipping would empty the whole
 *     backlog into a receiver that drops it (decision, docs/outputs.md §Webhook delivery).
 * The outbox, the health entry `out:<id>` and the failed state are the OutputRunner's (output-runner.ts).
 */
import { VigilError } from '../core/errors.js';
import { readPem } from '../settings/pem-check.js';
import type { WebhookSettings } from '../settings/schema-outputs.js';
import type { OutgoingEvent } from './outbox.js';
import type { MetricValue } from './output-metrics.js';
import type { DeliveryContext, DeliveryStrategy, Verdict } from './output-runner.js';
import { webhookBody, type UidOf } from './webhook-body.js';
import { WebhookClient, type PostResult } from './webhook-client.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, signWebhook } from './webhook-signature.js';

export interface WebhookDeliveryOptions {
  readonly url: URL;
  readonly settings: WebhookSettings;
  /** general.instance_name: the body's `gateway`. */
  readonly gateway: string;
  readonly uidOf: UidOf;
}

type Answer = 'delivered' | 'transient' | 'refused';

export function answerOf(result: PostResult): Answer {
  if (result.kind === 'error') return 'transient';
  const { status } = result;
  if (status >= 200 && status < 300) return 'delivered';
  // RFC 9110 §15.5.9 (408) and RFC 6585 §4 (429) ask the client to try again; 5xx are the server's trouble.
  if (status === 408 || status === 429 || status >= 500) return 'transient';
  return 'refused';
}

const DELIVERED: Verdict = { kind: 'delivered' };
const PENDING: Verdict = { kind: 'pending' };

export class WebhookDelivery implements DeliveryStrategy {
  readonly protocol = 'JSON';
  readonly where: string;
  readonly batchSize: number;
  readonly whileFailed = 'the head events are retried until the receiver accepts them';
  private readonly o: WebhookDeliveryOptions;
  private ctx: DeliveryContext | null = null;
  private client: WebhookClient | null = null;
  /** Failed POSTs in a row. */
  private failures = 0;

  constructor(options: WebhookDeliveryOptions) {
    this.o = options;
    // Origin only: a query string may carry a receiver's token, and health details are shown on the Status view.
    this.where = `webhook ${options.url.origin}`;
    this.batchSize = options.settings.batch_size;
  }

  async start(ctx: DeliveryContext): Promise<void> {
    const { settings, url } = this.o;
    const ca = settings.ca_file === '' ? null : await readCa(settings.ca_file);
    this.client = new WebhookClient({ url, timeoutMs: settings.timeout_ms, ca });
    this.ctx = ctx;
    // Nothing is known to be wrong until a POST fails: `ok`, and the link counts as up (docs/outputs.md §Webhook).
    ctx.metrics.set({ connected: true });
    ctx.report('ok', null);
  }

  /** HTTP has no link to keep up or probe: every try is a POST of the real events. */
  async ready(): Promise<boolean> {
    return true;
  }

  idleMs(): number {
    return Infinity;
  }

  /** One POST of the batch; on failure, the wait before the next one. */
  async deliver(batch: readonly OutgoingEvent[]): Promise<Verdict> {
    const ctx = this.ctx;
    const client = this.client;
    if (!ctx || !client) throw new Error('webhook delivery used before start()');
    const { settings } = this.o;
    const body = webhookBody(this.o.gateway, batch, this.o.uidOf);
    const timestamp = Math.floor(ctx.clock.now() / 1000);
    const result = await client.post(body, {
      [EVENT_ID_HEADER]: batch.map((e) => e.event.id).join(','),
      [TIMESTAMP_HEADER]: String(timestamp),
      [SIGNATURE_HEADER]: signWebhook(settings.secret, timestamp, body),
      'user-agent': 'Vigil-Webhook/1',
    });
    const answer = answerOf(result);
    if (answer === 'delivered') {
      ctx.metrics.ack(ctx.clock.now());
      this.failures = 0;
      ctx.metrics.set({ connected: true });
      return DELIVERED;
    }
    if (ctx.stopping) return PENDING;
    this.failures++;
    ctx.metrics.count('retries');
    ctx.metrics.set({ connected: result.kind === 'status' });
    const said = result.kind === 'status' ? `HTTP ${result.status}` : result.reason;
    const reason =
      answer === 'refused'
        ? `${this.where} refused the events (${said}); retrying`
        : `${this.where}: ${said}; retrying`;
    ctx.logger.warn('webhook POST not accepted', {
      output: ctx.id,
      events: batch.map((e) => e.event.id).join(','),
      answer: said,
      attempt: this.failures,
    });
    return {
      kind: 'retry',
      reason,
      fail: answer === 'refused' || this.failures > settings.retries,
      afterMs: Math.min(settings.retry_min_ms * 2 ** Math.min(this.failures - 1, 30), settings.retry_max_ms),
    };
  }

  healthy(): boolean {
    return this.failures === 0;
  }

  /** `connected` changes with each answer (deliver()), not on the metrics timer. */
  figures(): Record<string, MetricValue> {
    return {};
  }

  /** Ends a POST in flight at once: its batch stays the head and is sent again after the restart. */
  interrupt(): void {
    this.client?.close();
  }

  async close(): Promise<void> {}
}

/** The same bounded read as the settings check (a regular PEM file of at most 64 KiB, within 2 s). */
async function readCa(path: string): Promise<string> {
  const read = await readPem(path);
  if (!read.ok) throw new VigilError('SERVICE_FAILED', `webhook.ca_file ${path}: ${read.reason}`);
  return read.text;
}
