/**
 * A webhook output (type 4, docs/outputs.md §Webhook): the durable outbox handed on by HTTP(S) POST, signed
 * with the output's shared secret.
 *   - In order, at least once: the head batch (1..batch_size events) is POSTed until an answer is 2xx; only then
 *     does the cursor pass it. A restart re-sends at most what was unflushed; the receiver de-duplicates by id.
 *   - 408, 429, 5xx, a timeout or a connection error: sent again after a wait of retry_min_ms doubling to
 *     retry_max_ms; after `retries` such failures in a row the output is `failed` (internal event
 *     output_failed) and keeps retrying at the same pace; the first 2xx restores it (output_restored).
 *   - Any other answer (3xx, 4xx) is a refusal: the output is `failed` at once with the status code and keeps
 *     retrying with the same backoff. It never skips the event: a refusal is almost always the receiver's
 *     configuration (wrong secret, path, proxy) and applies to every event, so skipping would empty the whole
 *     backlog into a receiver that drops it (decision, docs/outputs.md §Webhook delivery).
 * Health `out:<id>` kind 'output' with the same figures as the other outputs (output-metrics.ts).
 */
import type { Clock } from '../core/clock.js';
import { VigilError, describeError } from '../core/errors.js';
import type { ComponentState, HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import { readPem } from '../settings/pem-check.js';
import type { WebhookSettings } from '../settings/schema-outputs.js';
import type { Outbox, OutgoingEvent } from './outbox.js';
import { OutputMetrics } from './output-metrics.js';
import type { OutputTimings } from './output-timings.js';
import { Wakeup } from './wakeup.js';
import { webhookBody, type UidOf } from './webhook-body.js';
import { WebhookClient, type PostResult } from './webhook-client.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, signWebhook } from './webhook-signature.js';

export interface WebhookOutputOptions {
  readonly id: number;
  readonly url: URL;
  readonly settings: WebhookSettings;
  /** general.instance_name: the body's `gateway`. */
  readonly gateway: string;
  readonly outbox: Outbox;
  readonly uidOf: UidOf;
  readonly timings: Pick<OutputTimings, 'pollIntervalMs' | 'cursorFlushMs' | 'metricsIntervalMs'>;
  readonly health: HealthRegistry;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly onEventStored?: (listener: () => void) => () => void;
}

type Verdict = 'delivered' | 'transient' | 'refused';

export function verdictOf(result: PostResult): Verdict {
  if (result.kind === 'error') return 'transient';
  const { status } = result;
  if (status >= 200 && status < 300) return 'delivered';
  // RFC 9110 §15.5.9 (408) and RFC 6585 §4 (429) ask the client to try again; 5xx are the server's trouble.
  if (status === 408 || status === 429 || status >= 500) return 'transient';
  return 'refused';
}

export class WebhookOutput implements Service {
  readonly name: string;
  private readonly o: WebhookOutputOptions;
  private readonly metrics: OutputMetrics;
  private readonly wakeup = new Wakeup();
  private readonly sleepers = new Set<() => void>();
  private client: WebhookClient | null = null;
  private loop: Promise<void> | null = null;
  private stopping = false;
  private failed = false;
  private failures = 0;
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void) | null = null;

  constructor(options: WebhookOutputOptions) {
    this.o = options;
    this.name = `out:${options.id}`;
    this.metrics = new OutputMetrics(this.name, options.health, options.clock.now());
  }

  async start(): Promise<void> {
    if (this.loop) return;
    const { outbox, settings, logger, timings } = this.o;
    this.stopping = false;
    this.report('starting', null);
    try {
      const ca = settings.ca_file === '' ? null : await this.readCa(settings.ca_file);
      this.client = new WebhookClient({ url: this.o.url, timeoutMs: settings.timeout_ms, ca });
      const cursor = await outbox.open();
      logger.info('output starting', { output: this.o.id, protocol: 'JSON', link: this.where(), cursor });
    } catch (err) {
      this.report('failed', `cannot start: ${describeError(err)}`);
      throw err;
    }
    this.unsubscribe = this.o.onEventStored?.(() => this.wakeup.ring()) ?? null;
    this.timers.push(setInterval(() => void this.flushCursor(), timings.cursorFlushMs));
    this.timers.push(setInterval(() => this.refreshMetrics(), timings.metricsIntervalMs));
    // Nothing is known to be wrong until a POST fails: `ok`, and the link counts as up (docs/outputs.md §Webhook).
    this.metrics.set({ connected: true });
    this.report('ok', null);
    this.refreshMetrics();
    this.loop = this.run().catch((err: unknown) => {
      logger.error('output loop ended unexpectedly', { output: this.o.id, error: describeError(err) });
      this.report('failed', `internal error: ${describeError(err)}`);
    });
  }

  async stop(): Promise<void> {
    if (!this.loop) return;
    this.stopping = true;
    this.wakeup.ring();
    for (const wake of [...this.sleepers]) wake();
    // Ends a POST in flight at once: its batch stays the head and is sent again after the restart.
    this.client?.close();
    await this.loop;
    this.loop = null;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.flushCursor();
    this.o.health.remove(this.name);
    this.o.logger.info('output stopped', { output: this.o.id, cursor: this.o.outbox.cursor });
  }

  private async run(): Promise<void> {
    const { outbox, settings, timings } = this.o;
    while (!this.stopping) {
      let batch: OutgoingEvent[];
      try {
        batch = outbox.peek(settings.batch_size);
      } catch (err) {
        this.report('degraded', `cannot read the journal: ${describeError(err)}`);
        await this.sleep(timings.pollIntervalMs);
        continue;
      }
      if (batch.length === 0) {
        await this.wakeup.wait(timings.pollIntervalMs);
        continue;
      }
      await this.deliver(batch);
    }
  }

  /** One POST of the batch; on failure, the wait before the next one. */
  private async deliver(batch: OutgoingEvent[]): Promise<void> {
    const { outbox, settings, logger } = this.o;
    const body = webhookBody(this.o.gateway, batch, this.o.uidOf);
    const timestamp = Math.floor(this.o.clock.now() / 1000);
    const result = await this.client!.post(body, {
      [EVENT_ID_HEADER]: batch.map((e) => e.event.id).join(','),
      [TIMESTAMP_HEADER]: String(timestamp),
      [SIGNATURE_HEADER]: signWebhook(settings.secret, timestamp, body),
      'user-agent': 'Vigil-Webhook/1',
    });
    const verdict = verdictOf(result);
    if (verdict === 'delivered') {
      for (const e of batch) {
        outbox.head();
        outbox.done(e.event.id);
        this.metrics.count('delivered');
      }
      this.metrics.ack(this.o.clock.now());
      this.failures = 0;
      this.metrics.set({ connected: true });
      if (this.failed) this.restore();
      return;
    }
    if (this.stopping) return;
    this.failures++;
    this.metrics.count('retries');
    this.metrics.set({ connected: result.kind === 'status' });
    const answer = result.kind === 'status' ? `HTTP ${result.status}` : result.reason;
    const reason =
      verdict === 'refused'
        ? `${this.where()} refused the events (${answer}); retrying`
        : `${this.where()}: ${answer}; retrying`;
    logger.warn('webhook POST not accepted', {
      output: this.o.id,
      events: batch.map((e) => e.event.id).join(','),
      answer,
      attempt: this.failures,
    });
    if (verdict === 'refused' || this.failures > settings.retries) this.fail(reason);
    else if (!this.failed) this.report('degraded', reason);
    await this.sleep(Math.min(settings.retry_min_ms * 2 ** Math.min(this.failures - 1, 30), settings.retry_max_ms));
  }

  private fail(reason: string): void {
    const first = !this.failed;
    this.failed = true;
    this.metrics.set({ failed: true });
    this.report('failed', reason);
    if (!first) return;
    void this.flushCursor();
    this.o.logger.error('output failed: the head events are retried until the receiver accepts them', {
      output: this.o.id,
      reason,
    });
  }

  private restore(): void {
    this.failed = false;
    this.metrics.set({ failed: false });
    this.report('ok', null);
    this.o.logger.info('output restored', { output: this.o.id, cursor: this.o.outbox.cursor });
  }

  /** Sleeps; stop() cuts it short. New events do not: a failing receiver gets its backoff. */
  private sleep(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }

  /** The same bounded read as the settings check (a regular PEM file of at most 64 KiB, within 2 s). */
  private async readCa(path: string): Promise<string> {
    const read = await readPem(path);
    if (!read.ok) throw new VigilError('SERVICE_FAILED', `webhook.ca_file ${path}: ${read.reason}`);
    return read.text;
  }

  /** Origin only: a query string may carry a receiver's token, and health details are shown on the Status view. */
  private where(): string {
    return `webhook ${this.o.url.origin}`;
  }

  private flushCursor(): Promise<void> {
    return this.o.outbox.flushOrLog(this.o.logger);
  }

  private refreshMetrics(): void {
    this.metrics.set({ ...this.o.outbox.figures() });
  }

  private report(state: ComponentState, detail: string | null): void {
    this.metrics.report(state, detail);
  }
}
