/**
 * A GSM modem as a receiver sees it over a serial line (docs/modem.md §Simulator): the AT set the
 * modem receiver uses, a SIM that may ask for its PIN, SMS storage read in PDU mode, +CMTI for
 * every stored part, RING with +CLIP, and faults to order: silence, echo, a slow answer, a URC in
 * the middle of an answer. No port inside: feed(bytes) in, `write` out.
 */
import { AtLineSplitter } from '../../protocols/at/lines.js';
import { encodeDeliverPdus, type DeliverInput } from '../../protocols/sms/pdu-encode.js';

export interface ModemSimOptions {
  /** The SIM PIN; when set the SIM starts locked (+CPIN: SIM PIN). */
  readonly pin?: string;
  /** Storage indexes start at 0 or 1 (both exist in the field). */
  readonly indexBase?: 0 | 1;
  readonly echo?: boolean;
  readonly csq?: number;
  /** +CREG stat: 1 home, 5 roaming, 0/2/3 not registered. */
  readonly creg?: number;
  /** Delay before every answer, ms. */
  readonly answerDelayMs?: number;
  readonly manufacturer?: string;
  readonly model?: string;
  readonly imei?: string;
  /** SIM storage size. */
  readonly capacity?: number;
}

interface Stored {
  readonly pdu: string;
  /** TS 27.005 §3.1 <stat>: 0 received unread, 1 received read. */
  stat: number;
}

const CRLF = '\r\n';

export class ModemSimulator {
  readonly received: string[] = [];
  /** Counters a test can assert on. */
  readonly stats = { commands: 0, deleted: 0, pinAttempts: 0, hangups: 0 };
  echo: boolean;
  silent = false;
  csq: number;
  creg: number;
  answerDelayMs: number;
  /** The next answer gets this URC between its information lines (once). */
  urcInsideNextAnswer: string | null = null;
  /** Called right after an answer was written (tests put a URC right behind an answer with it). */
  afterAnswer: ((command: string) => void) | null = null;
  private readonly options: ModemSimOptions;
  private readonly write: (text: string) => void;
  private readonly splitter = new AtLineSplitter();
  private readonly storage = new Map<number, Stored>();
  private pinLocked: boolean;
  private cnmi = false;
  private nextRef = 1;
  private timers = new Set<NodeJS.Timeout>();

  constructor(write: (text: string) => void, options: ModemSimOptions = {}) {
    this.write = write;
    this.options = options;
    this.echo = options.echo ?? true;
    this.csq = options.csq ?? 20;
    this.creg = options.creg ?? 1;
    this.answerDelayMs = options.answerDelayMs ?? 0;
    this.pinLocked = options.pin !== undefined;
  }

  get stored(): number {
    return this.storage.size;
  }

  get simLocked(): boolean {
    return this.pinLocked;
  }

  feed(chunk: Uint8Array): void {
    // The echo comes back as typed, before the answer (V.250 §6.2.4), even for a slow modem.
    for (const line of this.splitter.push(chunk)) {
      if (this.silent) continue;
      if (this.echo) this.write(`${line}\r`);
      this.command(line);
    }
  }

  /**
   * Stores an SMS (split into parts when long) and announces each part with +CMTI, in `order`
   * (part indexes 0..n-1; default: in sequence). Returns the storage indexes used.
   */
  deliver(input: Omit<DeliverInput, 'sentAt'> & { sentAt?: number }, order?: readonly number[]): number[] {
    const pdus = encodeDeliverPdus({ ref: this.nextRef++ & 0xff, ...input, sentAt: input.sentAt ?? Date.now() });
    const sequence = order ?? pdus.map((_, i) => i);
    const indexes: number[] = [];
    for (const part of sequence) {
      const index = this.freeIndex();
      if (index === null) break;
      this.storage.set(index, { pdu: pdus[part]!, stat: 0 });
      indexes.push(index);
      if (!this.silent && this.cnmi) this.write(`${CRLF}+CMTI: "SM",${index}${CRLF}`);
    }
    return indexes;
  }

  /** An incoming call: RING and +CLIP (when enabled), as a real modem repeats every few seconds. */
  ring(number: string): void {
    if (this.silent) return;
    const type = number.startsWith('+') ? 145 : 129;
    this.write(`${CRLF}RING${CRLF}${CRLF}+CLIP: "${number}",${type},"",,"",0${CRLF}`);
  }

  /** A URC out of the blue (^RSSI, ^BOOT, RDY...). */
  urc(line: string): void {
    if (!this.silent) this.write(`${CRLF}${line}${CRLF}`);
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private freeIndex(): number | null {
    const base = this.options.indexBase ?? 1;
    const capacity = this.options.capacity ?? 50;
    for (let i = base; i < base + capacity; i++) if (!this.storage.has(i)) return i;
    return null;
  }

  private command(line: string): void {
    this.stats.commands++;
    this.received.push(line);
    const answer = this.answer(line.trim());
    if (answer === null) return;
    const send = (): void => {
      let lines = answer;
      const urc = this.urcInsideNextAnswer;
      if (urc !== null && lines.length > 1) {
        this.urcInsideNextAnswer = null;
        lines = [lines[0]!, urc, ...lines.slice(1)];
      }
      this.write(lines.map((l) => `${CRLF}${l}${CRLF}`).join(''));
      this.afterAnswer?.(line);
    };
    if (this.answerDelayMs <= 0) {
      send();
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.silent) send();
    }, this.answerDelayMs);
    this.timers.add(timer);
  }

  /** The answer lines (final result code last), or null for no answer. */
  private answer(cmd: string): string[] | null {
    const upper = cmd.toUpperCase();
    if (!upper.startsWith('AT')) return null;
    const body = upper.slice(2);
    if (body === '' || body === 'E0' || body === 'E1') {
      if (body === 'E0') this.echo = false;
      if (body === 'E1') this.echo = true;
      return ['OK'];
    }
    if (body === 'Z') {
      this.echo = this.options.echo ?? true;
      this.cnmi = false;
      return ['OK'];
    }
    if (body === 'H') {
      this.stats.hangups++;
      return ['OK'];
    }
    if (body === '+CMEE=1' || body === '+CMGF=0' || body === '+CLIP=1' || body.startsWith('+CREG=')) return ['OK'];
    if (body === '+CGMI') return [this.options.manufacturer ?? 'VIGIL-SIM', 'OK'];
    if (body === '+CGMM') return [this.options.model ?? 'SIM-MODEM-1', 'OK'];
    if (body === '+CGSN') return [this.options.imei ?? '356938035643809', 'OK'];
    if (body === '+CSQ') return [`+CSQ: ${this.csq},99`, 'OK'];
    if (body === '+CREG?') return [`+CREG: 0,${this.creg}`, 'OK'];
    if (body === '+CPIN?') return [this.pinLocked ? '+CPIN: SIM PIN' : '+CPIN: READY', 'OK'];
    const pin = /^\+CPIN="?(\d+)"?$/.exec(cmd.slice(2));
    if (pin) {
      this.stats.pinAttempts++;
      if (!this.pinLocked) return ['+CME ERROR: 3'];
      if (pin[1] !== this.options.pin) return ['+CME ERROR: 16'];
      this.pinLocked = false;
      return ['OK'];
    }
    // TS 27.007 §9.2.1: 11 = SIM PIN required.
    if (this.pinLocked) return ['+CME ERROR: 11'];
    if (body.startsWith('+CPMS=')) {
      const used = this.storage.size;
      const total = this.options.capacity ?? 50;
      return [`+CPMS: ${used},${total},${used},${total},${used},${total}`, 'OK'];
    }
    if (body.startsWith('+CNMI=')) {
      this.cnmi = true;
      return ['OK'];
    }
    const read = /^\+CMGR=(\d+)$/.exec(body);
    if (read) return this.readSms(Number(read[1]));
    const del = /^\+CMGD=(\d+)(,\d+)?$/.exec(body);
    if (del) {
      if (this.storage.delete(Number(del[1]))) this.stats.deleted++;
      return ['OK'];
    }
    if (body === '+CMGL=4') return this.listSms();
    return ['ERROR'];
  }

  private readSms(index: number): string[] {
    const sms = this.storage.get(index);
    // TS 27.005 §3.2.5: 321 = invalid memory index.
    if (!sms) return ['+CMS ERROR: 321'];
    const answer = [`+CMGR: ${sms.stat},,${sms.pdu.length / 2 - smscOctets(sms.pdu)}`, sms.pdu, 'OK'];
    sms.stat = 1;
    return answer;
  }

  private listSms(): string[] {
    const out: string[] = [];
    for (const [index, sms] of [...this.storage].sort((a, b) => a[0] - b[0])) {
      out.push(`+CMGL: ${index},${sms.stat},,${sms.pdu.length / 2 - smscOctets(sms.pdu)}`, sms.pdu);
      sms.stat = 1;
    }
    out.push('OK');
    return out;
  }
}

/** TS 27.005 §3.4.3: <length> counts the TPDU only, not the SMSC address in front. */
function smscOctets(pdu: string): number {
  return parseInt(pdu.slice(0, 2), 16) + 1;
}
