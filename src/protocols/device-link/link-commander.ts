/**
 * Commands over one device's link (docs/device-link.md §4): request ids, the per-device queue,
 * reply assembly and the deadline, with no socket in sight. The transport supplies `send`,
 * passes every decoded VL-RSP / VL-ACK to handleMessage and calls close() when the TCP
 * connection ends.
 */
import type { Clock } from '../../core/clock.js';
import {
  DEVICE_REPLY_TIMEOUT_MS,
  type DeviceCommandError,
  type DeviceCommandOutcome,
  type DeviceCommandRequest,
  type DeviceIdentity,
} from '../../core/device-commands.js';
import type { RandomBytes } from '../dc09/crypto.js';
import { encodeCommand, encodeTime, type LinkKey } from './codec.js';
import { CommandQueue, type TimerApi } from './command-queue.js';
import { MAX_ACCESS_CODE_BYTES, MAX_DATA_BYTES, type CommandAuth, type DecodedLinkMessage } from './messages.js';
import { ReplyAssembler } from './reply-assembler.js';

export interface LinkCommanderOptions {
  /** Writes one frame; false when it could not be written (the connection is gone). */
  readonly send: (frame: Buffer) => boolean;
  /** The link's key: the connection's SessionKey (ProofDecision.sessionKey); null only in tests of plain framing. */
  readonly key: LinkKey;
  /** Who the device is, read at answer time (the object's oid can change). */
  readonly identity: () => DeviceIdentity;
  readonly clock: Clock;
  readonly timers: TimerApi;
  readonly timeoutMs?: number;
  readonly maxWaiting?: number;
  readonly randomBytes?: RandomBytes;
  /** First request id (1..9999); tests fix it, the default is 1. */
  readonly firstSeq?: number;
}

interface InFlight {
  readonly seq: number;
  /** Returns true when the message belonged to this request. */
  readonly accept: (message: DecodedLinkMessage) => boolean;
}

export class LinkCommander {
  private readonly options: LinkCommanderOptions;
  private readonly queue: CommandQueue<DeviceCommandOutcome>;
  private nextSeq: number;
  private inFlight: InFlight | null = null;
  private closed = false;

  constructor(options: LinkCommanderOptions) {
    this.options = options;
    this.queue = new CommandQueue(options.timers, options.timeoutMs ?? DEVICE_REPLY_TIMEOUT_MS, options.maxWaiting);
    this.nextSeq = options.firstSeq ?? 1;
  }

  execute(request: DeviceCommandRequest): Promise<DeviceCommandOutcome> {
    if (this.closed) return Promise.resolve(this.failure('NO_CONNECTION'));
    if (request.data.length > MAX_DATA_BYTES) {
      return Promise.resolve(this.failure('BAD_DATA', `data longer than ${MAX_DATA_BYTES} bytes`));
    }
    const auth = this.authOf(request);
    // A code longer than any device stores cannot be right (docs/device-link.md §4.3).
    if (!auth) return Promise.resolve(this.failure('MPASS_IS_INCORRECT'));
    // The master code never travels in clear (docs/device-link.md §3.3): a link without a key cannot carry it.
    if (auth.mode === 'code' && this.options.key === null)
      return Promise.resolve(this.failure('NO_CONNECTION', 'the link is not encrypted'));
    const wanted = request.responseRequired;
    return this.queue.submit({
      start: (settle) => {
        const seq = this.allocateSeq();
        const assembler = new ReplyAssembler(request.kind);
        this.inFlight = {
          seq,
          accept: (message) => {
            if (message.type !== 'response') return false;
            const before = assembler.received;
            const step = assembler.push(message);
            if (wanted && assembler.received > before) this.notifyPacket(request, message.data, assembler.received);
            if (step.state === 'done') {
              this.inFlight = null;
              const reply = step.reply;
              settle(reply.ok ? this.success(wanted ? reply.packets : []) : this.failure(reply.error));
            }
            return true;
          },
        };
        const frame = encodeCommand(
          {
            kind: request.kind,
            seq,
            timestamp: this.options.clock.now(),
            auth,
            replyWanted: wanted,
            data: request.data,
          },
          { key: this.options.key, randomBytes: this.options.randomBytes },
        );
        this.write(frame, settle);
      },
      expire: (started) => {
        if (started) this.inFlight = null;
        // Without response_required the contract has no NO_RESPONSE: a sent command whose status
        // never came is "sent"; one that never left the queue could not reach the device.
        if (wanted) return this.failure('NO_RESPONSE', 'no device reply within the deadline');
        return started ? this.success([]) : this.failure('NO_CONNECTION', 'device busy');
      },
    });
  }

  /** Sends VL-TIME with the clock's time; true when the device acknowledged it in time. */
  async syncTime(utcOffsetMinutes?: number): Promise<boolean> {
    if (this.closed) return false;
    const outcome = await this.queue.submit({
      start: (settle) => {
        const seq = this.allocateSeq();
        this.inFlight = {
          seq,
          accept: (message) => {
            if (message.type !== 'time-ack') return false;
            this.inFlight = null;
            settle(this.success([]));
            return true;
          },
        };
        const offset = utcOffsetMinutes === undefined ? {} : { utcOffsetMinutes };
        const frame = encodeTime({ seq, timestamp: this.options.clock.now(), ...offset }, { key: this.options.key });
        this.write(frame, settle);
      },
      expire: (started) => {
        if (started) this.inFlight = null;
        return this.failure('NO_RESPONSE');
      },
    });
    return outcome.ok;
  }

  /**
   * A decoded VL-RSP or VL-ACK from this device. Returns false when ignored: not for the request
   * in flight (a late reply after its deadline), or plain on an encrypted link and vice versa.
   */
  handleMessage(message: DecodedLinkMessage): boolean {
    const current = this.inFlight;
    if (!current || message.seq !== current.seq) return false;
    if (message.encrypted !== (this.options.key !== null)) return false;
    return current.accept(message);
  }

  /** The connection ended: the command in flight and all queued ones get NO_CONNECTION. */
  close(): void {
    this.closed = true;
    this.inFlight = null;
    this.queue.fail(this.failure('NO_CONNECTION'));
  }

  private write(frame: Buffer, settle: (outcome: DeviceCommandOutcome) => void): void {
    if (this.options.send(frame)) return;
    this.inFlight = null;
    settle(this.failure('NO_CONNECTION'));
  }

  private authOf(request: DeviceCommandRequest): CommandAuth | null {
    if (request.omitMasterPassword) return { mode: 'omit' };
    const code = request.cloudAccessCode ?? '';
    if (code === '') return { mode: 'none' };
    return Buffer.byteLength(code, 'utf8') <= MAX_ACCESS_CODE_BYTES ? { mode: 'code', code } : null;
  }

  /** Request ids 1..9999 then 1 again (the DC-09 sequence field); 0 is never used by the gateway. */
  private allocateSeq(): number {
    const seq = this.nextSeq;
    this.nextSeq = seq >= 9999 ? 1 : seq + 1;
    return seq;
  }

  private notifyPacket(request: DeviceCommandRequest, packet: Buffer, number: number): void {
    try {
      request.onPacket?.(packet, number);
    } catch {
      // An observer (the page) must never break the command.
    }
  }

  private success(packets: readonly Buffer[]): DeviceCommandOutcome {
    return { ok: true, device: this.options.identity(), packets };
  }

  private failure(error: DeviceCommandError, message?: string): DeviceCommandOutcome {
    return { ok: false, error, device: this.options.identity(), ...(message ? { message } : {}) };
  }
}
