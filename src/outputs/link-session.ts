/**
 * One output's conversation with its peer over a ByteLink: connect, send one message, wait for its verdict, send
 * it again on NAK / silence / link loss (MLR2-DG manual "Acknowledgment of the signal": ACK within the timeout,
 * "retransmission of the same signal three times before giving up"). Only one message is ever outstanding, so
 * replies can be matched and order is kept. Decisions about the outcome (fail, skip, resume) belong to LinkDelivery and the OutputRunner.
 */
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { isPassiveLink, type ByteLink } from './byte-link.js';
import type { OutputMetrics } from './output-metrics.js';
import type { Exchange, ProtocolDriver, Verdict } from './protocol-driver.js';
import { Sleeps } from './wakeup.js';

/**
 * ack: delivered. failed: retries exhausted. refused: every transmission was refused (DC-09 DUH).
 * disconnected: a passive link (TCP server output) has no client; the message waits for the next one, and the
 * absence is supervised by time, not by transmissions (LinkDelivery).
 */
export type DeliverResult = 'ack' | 'failed' | 'refused' | 'stopped' | 'disconnected';

type Outcome = Verdict | 'timeout' | 'closed' | 'stopped';

interface Pending<R> {
  readonly exchange: Exchange<R>;
  readonly finish: (outcome: Outcome) => void;
}

export interface LinkSessionOptions<R> {
  readonly outputId: number;
  readonly link: ByteLink;
  readonly driver: ProtocolDriver<R>;
  readonly ackTimeoutMs: number;
  readonly metrics: OutputMetrics;
  readonly logger: Logger;
  /** Wall-clock time for last_ack_at. */
  readonly now: () => number;
  readonly onConnected: () => void;
  readonly onConnectFailed: (reason: string) => void;
  /** The link went down by itself (not through close()). */
  readonly onLost: (reason: string) => void;
}

export class LinkSession<R> {
  private readonly o: LinkSessionOptions<R>;
  private readonly sleeps = new Sleeps();
  private pending: Pending<R> | null = null;
  private stopping = false;

  constructor(options: LinkSessionOptions<R>) {
    this.o = options;
  }

  get connected(): boolean {
    return this.o.link.connected;
  }

  /** Wires the link's callbacks; call once before use. */
  attach(): void {
    this.stopping = false;
    this.sleeps.start();
    this.o.link.onData((chunk) => this.onData(chunk));
    this.o.link.onClose((reason) => {
      this.pending?.finish('closed');
      this.o.onLost(reason);
    });
  }

  async connect(): Promise<boolean> {
    try {
      await this.o.link.connect();
    } catch (err) {
      this.o.logger.warn('cannot connect', { output: this.o.outputId, error: describeError(err) });
      this.o.onConnectFailed(describeError(err));
      return false;
    }
    this.o.driver.reset();
    this.o.logger.info('connected', { output: this.o.outputId, link: this.o.link.description });
    this.o.onConnected();
    return true;
  }

  /** One message, sent up to 1 + `retries` times. */
  async deliver(exchange: Exchange<R>, retries: number): Promise<DeliverResult> {
    let unanswered = 0;
    let onlyRefused = true;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (this.stopping) return 'stopped';
      if (!this.o.link.connected && isPassiveLink(this.o.link)) return 'disconnected';
      if (attempt > 0) this.o.metrics.count('retries');
      if (!this.o.link.connected) {
        unanswered = 0;
        if (!(await this.connect())) {
          onlyRefused = false;
          // A refused connection counts as a silent attempt: same pace as an unanswered message.
          await this.pause(this.o.ackTimeoutMs);
          continue;
        }
      }
      const outcome = await this.transmit(exchange);
      if (outcome === 'ack') {
        this.o.driver.settled(unanswered);
        this.o.metrics.ack(this.o.now());
        return 'ack';
      }
      if (outcome === 'stopped') return 'stopped';
      if (outcome !== 'refused') onlyRefused = false;
      if (outcome === 'timeout') unanswered++;
      this.o.logger.debug('no acknowledgement', { output: this.o.outputId, message: exchange.label, outcome, attempt });
    }
    return onlyRefused ? 'refused' : 'failed';
  }

  /** Sleeps; stop() cuts it short. */
  pause(ms: number): Promise<void> {
    return this.sleeps.sleep(ms);
  }

  /** Ends every wait at once (the outstanding message resolves 'stopped'). */
  stop(): void {
    this.stopping = true;
    this.pending?.finish('stopped');
    this.sleeps.stop();
  }

  close(): Promise<void> {
    return this.o.link.close();
  }

  private transmit(exchange: Exchange<R>): Promise<Outcome> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish('timeout'), this.o.ackTimeoutMs);
      const finish = (outcome: Outcome): void => {
        if (this.pending !== pending) return;
        clearTimeout(timer);
        this.pending = null;
        resolve(outcome);
      };
      const pending: Pending<R> = { exchange, finish };
      this.pending = pending;
      try {
        this.o.link.write(exchange.frame());
      } catch (err) {
        this.o.logger.warn('write failed', { output: this.o.outputId, error: describeError(err) });
        finish('closed');
      }
    });
  }

  private onData(chunk: Buffer): void {
    for (const reply of this.o.driver.read(chunk, this.o.link.framing)) {
      const pending = this.pending;
      if (!pending) return;
      const verdict = pending.exchange.reply(reply);
      if (verdict !== 'ignore') pending.finish(verdict);
    }
  }
}
