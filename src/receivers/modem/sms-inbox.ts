/**
 * Incoming SMS of one modem (docs/modem.md §Incoming SMS): +CMTI -> AT+CMGR -> decode ->
 * (reassemble) -> interpret -> journal -> AT+CMGD. An SMS leaves the SIM only after the
 * transaction holding its events has committed; every part of a concatenated SMS stays on the
 * SIM until the whole message has committed. If the journal write fails nothing is deleted and
 * the storage is listed again at the next poll, so nothing is lost and nothing is read twice into
 * the journal while it is still pending here.
 */
import { describeError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { EventIngest } from '../../ingest/event-ingest.js';
import type { FrameItem, IngestResult, ReceiverRef } from '../../ingest/types.js';
import { parseCmglHeader, parseCmgrHeader } from '../../protocols/at/results.js';
import { interpretSms, type SmsInterpretation } from '../../protocols/sms/payload.js';
import { decodeDeliverPdu } from '../../protocols/sms/pdu.js';
import { SmsReassembler } from '../../protocols/sms/reassembly.js';
import type { AtAnswer, SendOptions } from './at-driver.js';

/** How long the parts of an incomplete concatenated SMS wait for the rest before they are journaled as they are. */
export const CONCAT_TIMEOUT_MS = 60 * 60_000;
/** TS 27.005 §3.1 <stat>: 0 received unread, 1 received read (2, 3: stored outgoing, not ours). */
const RECEIVED = new Set([0, 1]);

export interface SmsInboxDeps {
  send(command: string, options?: SendOptions): Promise<AtAnswer>;
  readonly ingest: Pick<EventIngest, 'submit'>;
  readonly receiver: ReceiverRef;
  readonly key: Buffer | null;
  readonly now: () => number;
  readonly logger: Logger;
  /**
   * After the commit of an encrypted frame opened with the receiver's key and attributed to an object: its sender,
   * account and own timestamp (the only SMS a sender number is learned from, docs/modem.md §Test calls).
   */
  onAuthenticated(sender: string, account: string, at: number): void;
}

interface Part {
  readonly index: number;
  readonly pdu: string;
  readonly sentAt: number | null;
}

export class SmsInbox {
  /** `refused`: plain messages for an account on a receiver with a key (journaled as SMS-CORRUPT, no account). */
  readonly stats = { received: 0, journaled: 0, deleted: 0, corrupt: 0, refused: 0, failedCommits: 0 };
  private readonly deps: SmsInboxDeps;
  private readonly parts = new SmsReassembler<Part>();
  /** Indexes being read, journaled or deleted now. */
  private readonly busy = new Set<number>();
  /**
   * Indexes announced again while busy: the modem reuses an index as soon as AT+CMGD freed it, and
   * the new +CMTI can arrive in the same chunk as the OK of that AT+CMGD, before the index is released.
   */
  private readonly announcedAgain = new Set<number>();
  private rescanNeeded = false;

  constructor(deps: SmsInboxDeps) {
    this.deps = deps;
  }

  /** +CMTI: a new SMS at `index`. */
  async announced(index: number): Promise<void> {
    if (this.busy.has(index)) {
      this.announcedAgain.add(index);
      return;
    }
    if (this.held(index)) return;
    this.busy.add(index);
    let answer: AtAnswer;
    try {
      answer = await this.deps.send(`AT+CMGR=${index}`, { expect: '+CMGR' });
    } catch (err) {
      this.busy.delete(index);
      this.rescanNeeded = true;
      throw err;
    }
    const header = answer.lines[0] !== undefined ? parseCmgrHeader(answer.lines[0]) : null;
    const pdu = answer.lines[1];
    if (!answer.final.ok || !header || pdu === undefined) {
      this.busy.delete(index);
      // +CMS ERROR 321 (empty index): already deleted, e.g. read by AT+CMGL first.
      if (answer.final.ok || answer.final.line !== '+CMS ERROR: 321')
        this.deps.logger.warn('cannot read SMS', { index, answer: answer.final.line });
      return;
    }
    if (!RECEIVED.has(header.stat)) {
      this.busy.delete(index);
      return;
    }
    this.accept({ index, pdu, sentAt: null });
  }

  /** Lists the whole storage (at start, after a recovery, after a failed commit) and takes what is not held yet. */
  async scan(): Promise<void> {
    this.rescanNeeded = false;
    const answer = await this.deps.send('AT+CMGL=4', { expect: '+CMGL', timeoutMs: 30_000 });
    if (!answer.final.ok) {
      this.deps.logger.warn('cannot list stored SMS', { answer: answer.final.line });
      return;
    }
    const lines = answer.lines;
    for (let i = 0; i < lines.length; i++) {
      const header = parseCmglHeader(lines[i]!);
      if (!header) continue;
      const pdu = lines[i + 1];
      if (pdu === undefined || parseCmglHeader(pdu)) continue;
      i++;
      if (!RECEIVED.has(header.stat) || this.busy.has(header.index) || this.held(header.index)) continue;
      this.busy.add(header.index);
      this.accept({ index: header.index, pdu, sentAt: null });
    }
  }

  /** The poll: incomplete concatenated SMS that waited too long are journaled as they are; a rescan if one is due. */
  async poll(): Promise<void> {
    for (const late of this.parts.expire(this.deps.now(), CONCAT_TIMEOUT_MS)) {
      const indexes = late.tags.map((t) => t.index);
      const text = `incomplete concatenated SMS: ${late.text}`;
      this.stats.corrupt++;
      this.journal(
        late.sender,
        text,
        late.tags[0]?.sentAt ?? null,
        late.tags.map((t) => t.pdu),
        indexes,
        true,
      );
    }
    if (this.rescanNeeded) await this.scan();
  }

  /** The modem was reset or the port reopened: parts held stay (they are still on the SIM); reads in flight are forgotten. */
  reset(): void {
    this.busy.clear();
    this.announcedAgain.clear();
  }

  get pendingParts(): number {
    return this.parts.size;
  }

  private held(index: number): boolean {
    return this.parts.holds((p) => p.index === index);
  }

  private accept(part: Part): void {
    this.stats.received++;
    const decoded = decodeDeliverPdu(part.pdu);
    if (!decoded.ok) {
      this.stats.corrupt++;
      this.journal('', `undecodable PDU (${decoded.error}): ${part.pdu}`, null, [part.pdu], [part.index], true);
      return;
    }
    const sms = decoded.sms;
    const withTime: Part = { ...part, sentAt: sms.sentAt };
    if (!sms.concat) {
      this.journal(sms.sender, sms.text, sms.sentAt, [part.pdu], [part.index], false);
      return;
    }
    // A held part leaves `busy`: it is on the SIM, waiting for its siblings.
    this.busy.delete(part.index);
    const whole = this.parts.add(
      { sender: sms.sender, concat: sms.concat, text: sms.text, tag: withTime },
      this.deps.now(),
    );
    if (!whole) return;
    for (const t of whole.tags) this.busy.add(t.index);
    this.journal(
      whole.sender,
      whole.text,
      whole.tags[0]?.sentAt ?? null,
      whole.tags.map((t) => t.pdu),
      whole.tags.map((t) => t.index),
      false,
    );
  }

  /** Journals one message (all its parts) and deletes its parts once committed. */
  private journal(
    sender: string,
    text: string,
    sentAt: number | null,
    pdus: readonly string[],
    indexes: readonly number[],
    corrupt: boolean,
  ): void {
    const now = this.deps.now();
    const meaning: SmsInterpretation = corrupt
      ? interpretSms('', { key: null, now, sentAt })
      : interpretSms(text, { key: this.deps.key, now, sentAt });
    if (corrupt) {
      const e = meaning.events[0]!;
      e.protocol = 'SMS-CORRUPT';
      e.text = text;
    } else if (meaning.kind === 'corrupt') {
      this.stats.corrupt++;
    } else if (meaning.kind === 'refused') {
      this.stats.refused++;
      this.deps.logger.warn('plain SMS refused: the receiver has a key', { sender });
    }
    const item: FrameItem = {
      kind: 'frame',
      receiver: this.deps.receiver,
      transport: 'sms',
      remoteAddress: sender,
      receivedAt: now,
      session: null,
      raw: Buffer.from(pdus.join('\n'), 'latin1'),
      events: meaning.events,
      linkTest: meaning.linkTest,
      account: corrupt ? null : meaning.account,
      device: null,
    };
    this.deps.ingest.submit([item]).then(
      (results) => this.committed(item, meaning, results, indexes),
      (err: unknown) => {
        this.stats.failedCommits++;
        this.deps.logger.error('SMS not journaled: it stays on the SIM and is read again', {
          sender,
          error: describeError(err),
        });
        for (const i of indexes) this.busy.delete(i);
        this.rescanNeeded = true;
      },
    );
  }

  private async committed(
    item: FrameItem,
    meaning: SmsInterpretation,
    results: IngestResult[],
    indexes: readonly number[],
  ): Promise<void> {
    this.stats.journaled++;
    const attributed = results[0] !== undefined && results[0].objectId !== null;
    if (attributed && meaning.authenticatedAt !== null && meaning.account && item.remoteAddress !== '') {
      this.deps.onAuthenticated(item.remoteAddress, meaning.account, meaning.authenticatedAt);
    }
    for (const index of indexes) {
      try {
        const answer = await this.deps.send(`AT+CMGD=${index}`);
        if (answer.final.ok) this.stats.deleted++;
        else this.deps.logger.warn('cannot delete SMS', { index, answer: answer.final.line });
      } catch (err) {
        // Not deleted: the next listing reads it again (journaled twice rather than lost).
        this.deps.logger.warn('cannot delete SMS', { index, error: describeError(err) });
      } finally {
        this.release(index);
      }
    }
  }

  /** The index is free to be read again; a +CMTI that came meanwhile is served now. */
  private release(index: number): void {
    this.busy.delete(index);
    if (!this.announcedAgain.delete(index)) return;
    this.announced(index).catch((err: unknown) => {
      this.rescanNeeded = true;
      this.deps.logger.warn('cannot read SMS', { index, error: describeError(err) });
    });
  }
}
