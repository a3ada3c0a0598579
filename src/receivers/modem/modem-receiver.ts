/**
 * One GSM modem receiver (settings `modem_receivers[]`, docs/modem.md): a serial line from the
 * port layer, the AT driver on it, the start-up sequence at every open, signal and registration
 * polled, SMS read into the journal (SmsInbox), incoming calls rejected and counted as link tests
 * of the objects their number is known for (KnownCallers: configured, or learned from encrypted
 * SMS). A modem that stops answering is reset with ATZ, then its port is reopened; health shows
 * each step.
 */
import { describeError, isVigilError } from '../../core/errors.js';
import type { HealthRegistry } from '../../core/health.js';
import type { Logger } from '../../core/logger.js';
import type { SerialLine } from '../../core/serial.js';
import type { Service } from '../../core/service.js';
import type { EventIngest } from '../../ingest/event-ingest.js';
import type { FrameItem, ReceiverRef } from '../../ingest/types.js';
import { receiverPasswordKey } from '../../protocols/dc09/crypto.js';
import { parseClip, parseCmti, parseCreg, parseCsq } from '../../protocols/at/results.js';
import type { ModemReceiverSettings } from '../../settings/schema-receivers.js';
import { AtDriver } from './at-driver.js';
import { KnownCallers, type LearnedCallers } from './known-callers.js';
import { ModemMetrics } from './modem-metrics.js';
import { runStartup } from './modem-startup.js';
import type { PinLedger } from './pin-ledger.js';
import { SmsInbox } from './sms-inbox.js';

/** The slice of the port layer's SerialLine (src/core/serial.ts) a modem uses. */
export type ModemLine = Pick<SerialLine, 'start' | 'stop' | 'write' | 'reopen' | 'on'>;

export interface ModemReceiverDeps {
  readonly line: ModemLine;
  readonly ingest: Pick<EventIngest, 'submit'>;
  readonly health: HealthRegistry;
  readonly logger: Logger;
  readonly pins: PinLedger;
  /** Where the numbers learned from encrypted SMS are kept across restarts (KnownCallers). */
  readonly learnedCallers: LearnedCallerStore;
  readonly now?: () => number;
  /** AT command timeout, ms (tests shorten it). */
  readonly commandTimeoutMs?: number;
  /** How often the figures are copied to the health entry, ms. */
  readonly metricsIntervalMs?: number;
}

/** The store's record of the callers one modem receiver learned (src/receivers/modem/learned-caller-store.ts). */
export interface LearnedCallerStore {
  load(): unknown;
  /** A command to the store's one writer; rejects when it was not stored. */
  save(learned: LearnedCallers): Promise<void>;
}

/** A call rings every few seconds with RING + CLIP: one call is one link test. */
const SAME_CALL_MS = 20_000;
type Phase = 'down' | 'starting' | 'up' | 'recovering' | 'failed' | 'stopped';

export class ModemReceiver implements Service {
  readonly name: string;
  readonly healthName: string;
  readonly ref: ReceiverRef;
  readonly driver: AtDriver;
  readonly inbox: SmsInbox;
  readonly callers: KnownCallers;
  private readonly settings: ModemReceiverSettings;
  private readonly deps: ModemReceiverDeps;
  private readonly metrics: ModemMetrics;
  private readonly now: () => number;
  private readonly unsubscribe: Array<() => void> = [];
  private phase: Phase = 'down';
  private pollTimer: NodeJS.Timeout | null = null;
  private metricsTimer: NodeJS.Timeout | null = null;
  private polling = false;
  private lastCall: { number: string; at: number } | null = null;
  /** The latest save of the learned callers (each saves them all; the writer runs them in order). */
  private lastSave: Promise<void> = Promise.resolve();

  constructor(settings: ModemReceiverSettings, deps: ModemReceiverDeps) {
    this.settings = settings;
    this.deps = deps;
    this.name = `modem receiver ${settings.id} (${settings.name})`;
    this.healthName = `rx:modem:${settings.id}`;
    this.ref = { id: settings.id, kind: 'modem' };
    this.now = deps.now ?? Date.now;
    this.metrics = new ModemMetrics(settings.min_csq);
    this.callers = new KnownCallers();
    this.driver = new AtDriver({
      write: (text) => void deps.line.write(Buffer.from(text, 'latin1')),
      onUrc: (lines) => this.urc(lines),
      timeoutMs: deps.commandTimeoutMs ?? 5000,
    });
    this.inbox = new SmsInbox({
      send: (command, options) => this.driver.send(command, options),
      ingest: deps.ingest,
      receiver: this.ref,
      key: settings.encryption_password ? receiverPasswordKey(settings.encryption_password) : null,
      now: this.now,
      logger: deps.logger,
      onAuthenticated: (sender, account, at) => this.learnCaller(sender, account, at),
    });
  }

  async start(): Promise<void> {
    this.report('starting', `opening ${this.settings.port_id}`);
    this.callers.configure(this.settings.known_callers);
    try {
      this.callers.restore(this.deps.learnedCallers.load());
    } catch (err) {
      this.deps.logger.warn('cannot read the learned callers', { error: describeError(err) });
    }
    const line = this.deps.line;
    this.unsubscribe.push(
      line.on('open', () => void this.bringUp()),
      line.on('data', (chunk) => this.driver.feed(chunk)),
      line.on('lost', (reason) => this.lost(reason)),
    );
    this.pollTimer = setInterval(() => void this.poll(), this.settings.poll_interval_s * 1000);
    this.metricsTimer = setInterval(
      () => this.deps.health.setMetrics(this.healthName, this.metrics.figures(this)),
      this.deps.metricsIntervalMs ?? 1000,
    );
    await line.start();
  }

  async stop(): Promise<void> {
    this.phase = 'stopped';
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.metricsTimer) clearInterval(this.metricsTimer);
    this.pollTimer = this.metricsTimer = null;
    for (const off of this.unsubscribe.splice(0)) off();
    this.driver.close('receiver stopped');
    await this.deps.line.stop();
    // A number learned just before a restart is stored before the next receiver reads them back.
    await this.lastSave;
    this.deps.health.remove(this.healthName);
  }

  /** The port opened (first time, after a loss or a reopen): the whole start-up sequence. */
  private async bringUp(): Promise<void> {
    if (this.phase === 'stopped' || this.phase === 'failed') return;
    this.phase = 'starting';
    this.driver.close('port reopened');
    this.inbox.reset();
    this.report('starting', 'start-up sequence');
    const result = await runStartup({
      send: (command, options) => this.driver.send(command, options),
      portId: this.settings.port_id,
      pin: this.settings.sim_pin,
      pins: this.deps.pins,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    }).catch((err: unknown) => ({ ok: false as const, fatal: false, reason: describeError(err) }));
    if (this.phase !== 'starting') return;
    if (!result.ok) {
      if (result.fatal) {
        this.phase = 'failed';
        this.deps.logger.error('modem failed', { receiver: this.settings.id, reason: result.reason });
        this.report('failed', result.reason);
        return;
      }
      this.deps.logger.warn('modem start-up failed', { receiver: this.settings.id, reason: result.reason });
      return this.recover(result.reason);
    }
    this.metrics.identity = result.identity;
    this.phase = 'up';
    this.deps.logger.info('modem ready', { receiver: this.settings.id, ...result.identity });
    await this.poll(true);
  }

  /** Signal, registration, late concatenated parts and rescans; `scan`: list the whole storage too. */
  private async poll(scan = false): Promise<void> {
    if (this.phase !== 'up' || this.polling) return;
    this.polling = true;
    try {
      const csq = await this.driver.send('AT+CSQ', { expect: '+CSQ' });
      const signal = csq.lines.map(parseCsq).find((s) => s !== null);
      if (signal) this.metrics.signal(signal);
      const creg = await this.driver.send('AT+CREG?', { expect: '+CREG' });
      const reg = creg.lines.map((l) => parseCreg(l, true)).find((s) => s !== null);
      if (reg) this.metrics.registration(reg.registered);
      if (scan) await this.inbox.scan();
      await this.inbox.poll();
      this.publishState();
    } catch (err) {
      if (isVigilError(err, 'DEVICE_TIMEOUT')) void this.recover(describeError(err));
    } finally {
      this.polling = false;
    }
  }

  /** Step 1: ATZ and the start-up sequence again; step 2: reopen the port (the port layer's backoff applies). */
  private async recover(reason: string): Promise<void> {
    if (this.phase === 'stopped' || this.phase === 'failed' || this.phase === 'recovering') return;
    this.phase = 'recovering';
    this.metrics.resets++;
    this.report('degraded', `modem not answering (${reason}): ATZ sent`);
    this.driver.close('modem reset');
    const reset = await this.driver.send('ATZ').then(
      (a) => a.final.ok,
      () => false,
    );
    if (this.phase !== 'recovering') return;
    if (reset) {
      this.phase = 'down';
      return this.bringUp();
    }
    this.metrics.reopens++;
    this.phase = 'down';
    this.report('degraded', 'modem not answering after ATZ: port reopened');
    this.deps.line.reopen('modem not answering');
  }

  private lost(reason: string): void {
    if (this.phase === 'stopped') return;
    this.driver.close(`port lost: ${reason}`);
    if (this.phase !== 'failed') {
      this.phase = 'down';
      this.report('degraded', `port lost (${reason}); reopening`);
    }
  }

  private urc(lines: readonly string[]): void {
    const line = lines[0]!;
    this.metrics.urcs++;
    if (line.startsWith('+CMTI:')) {
      const cmti = parseCmti(line);
      if (cmti && this.phase === 'up') {
        this.inbox.announced(cmti.index).catch((err: unknown) => {
          if (isVigilError(err, 'DEVICE_TIMEOUT')) void this.recover(describeError(err));
        });
      }
    } else if (line === 'RING') {
      this.metrics.rings++;
      // TS 27.007 §6.5 (ATH): the call is rejected, never answered.
      if (this.phase === 'up') this.driver.send('ATH').catch(() => undefined);
    } else if (line.startsWith('+CLIP:')) {
      const clip = parseClip(line);
      if (clip) this.call(clip.number, line);
    } else if (line.startsWith('+CREG:')) {
      const reg = parseCreg(line, false);
      if (reg) {
        this.metrics.registration(reg.registered);
        this.publishState();
      }
    }
  }

  /** An encrypted SMS for `account` from `sender` committed: its number is known for the account from now on. */
  private learnCaller(sender: string, account: string, at: number): void {
    if (!this.callers.learn(sender, account, at)) return;
    this.lastSave = this.deps.learnedCallers.save(this.callers.learned()).catch((err: unknown) => {
      // Known until the receiver restarts; the next encrypted SMS saves it again.
      this.deps.logger.warn('cannot store the learned callers', { error: describeError(err) });
    });
  }

  /** A call from `number`: one link test for every object the number is known for. */
  private call(number: string, line: string): void {
    const now = this.now();
    if (this.lastCall && this.lastCall.number === number && now - this.lastCall.at < SAME_CALL_MS) return;
    this.lastCall = { number, at: now };
    this.metrics.calls++;
    const accounts = this.callers.accountsFor(number);
    this.deps.logger.info('incoming call rejected', {
      receiver: this.settings.id,
      number,
      link_test_for: accounts.join(','),
    });
    if (accounts.length === 0) return;
    const items: FrameItem[] = accounts.map((account) => ({
      kind: 'frame',
      receiver: this.ref,
      transport: 'sms',
      remoteAddress: number,
      receivedAt: now,
      session: null,
      raw: Buffer.from(line, 'latin1'),
      events: [],
      linkTest: true,
      account,
      device: null,
    }));
    this.deps.ingest.submit(items).then(
      () => (this.metrics.callLinkTests += items.length),
      (err: unknown) => this.deps.logger.warn('test call not recorded', { number, error: describeError(err) }),
    );
  }

  /** Radio trouble is `degraded`: the health bridge raises receiver_trouble / receiver_restored (docs/internal-events.md). */
  private publishState(): void {
    if (this.phase !== 'up') return;
    const trouble = this.metrics.troubleDetail();
    this.report(trouble ? 'degraded' : 'ok', trouble);
  }

  private report(state: 'starting' | 'ok' | 'degraded' | 'failed', detail: string | null): void {
    this.deps.health.report(this.healthName, 'receiver', state, detail, this.metrics.figures(this));
  }
}
