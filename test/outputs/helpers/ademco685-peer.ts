/**
 * A test stand-in for automation software reading an Ademco 685 feed (over real TCP on 127.0.0.1, or fed the bytes of
 * a serial line): it frames messages from LF to CR, reads each one by the fixed positions of the 685 layout (MX8000
 * guide §8.5.4 Figure 8-4) the way an automation package does, and answers as its policy says (ACK 0x06, NAK 0x15,
 * silence, a dropped connection). A message that is not a 685 Contact ID line nor the OKAY test message is recorded as
 * malformed and NAKed.
 */
import type { Socket } from 'node:net';
import { waitFor } from '../../helpers/net.js';
import { type AckAnswer, answer, TcpAckPeer } from './tcp-ack-peer.js';

export const OKAY_TEXT = '00 OKAY @';

export interface Ademco685Message {
  /** The bytes between LF and CR. */
  readonly text: string;
  readonly kind: 'event' | 'okay' | 'malformed';
  readonly receiver?: string;
  readonly group?: string;
  readonly account?: string;
  readonly qualifier?: string;
  readonly code?: string;
  readonly partition?: string;
  /** 'C' zone or 'U' user. */
  readonly kindOfNumber?: string;
  readonly number?: string;
}

const EVENT_RE = /^([0-9])([0-9]) ([0-9A-F]{4}) 18 ([ERP])([0-9A-F]{3}) ([0-9A-F]{2}) ([CU])([0-9A-F]{3}) $/;

/** Reads one message between LF and CR by its fixed positions. */
export function readAdemco685(text: string): Ademco685Message {
  if (text === OKAY_TEXT) return { text, kind: 'okay' };
  const m = EVENT_RE.exec(text);
  if (!m) return { text, kind: 'malformed' };
  const [, receiver, group, account, qualifier, code, partition, kindOfNumber, number] = m;
  return { text, kind: 'event', receiver, group, account, qualifier, code, partition, kindOfNumber, number };
}

export type Ademco685Answer = AckAnswer;
/** `copy` counts transmissions of the same text so far (1 = first). */
export type Ademco685Policy = (message: Ademco685Message, copy: number) => Ademco685Answer;

/** Splits a byte stream into LF...CR messages; bytes outside a message are counted as noise. */
export class Ademco685Framer {
  noise = 0;
  private pending: string | null = null;

  push(chunk: Buffer, onMessage: (text: string) => void): void {
    for (const ch of chunk.toString('latin1')) {
      if (ch === '\n') this.pending = '';
      else if (ch === '\r' && this.pending !== null) {
        onMessage(this.pending);
        this.pending = null;
      } else if (this.pending !== null) this.pending += ch;
      else this.noise++;
    }
  }
}

export class Ademco685Peer extends TcpAckPeer {
  readonly messages: Array<Ademco685Message & { at: number }> = [];
  policy: Ademco685Policy = (m) => (m.kind === 'malformed' ? 'nak' : 'ack');

  /** Texts of the event messages (not the OKAY test messages), in arrival order. */
  events(): string[] {
    return this.messages.filter((m) => m.kind !== 'okay').map((m) => m.text);
  }

  distinctEvents(): string[] {
    return [...new Set(this.events())];
  }

  okays(): number {
    return this.messages.filter((m) => m.kind === 'okay').length;
  }

  async waitForEvents(count: number, timeoutMs = 5000): Promise<void> {
    await waitFor(() => this.events().length >= count, timeoutMs, 5);
  }

  /** Records one message and returns the answer the policy gives (for readers on other transports). */
  take(text: string): Ademco685Answer {
    const message = readAdemco685(text);
    this.messages.push({ ...message, at: performance.now() });
    return this.policy(message, this.copy(text));
  }

  protected reader(socket: Socket): (chunk: Buffer) => void {
    const framer = new Ademco685Framer();
    return (chunk) => framer.push(chunk, (text) => answer(socket, this.take(text)));
  }
}
