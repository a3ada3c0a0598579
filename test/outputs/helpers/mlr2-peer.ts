/**
 * A test stand-in for automation software reading a Sur-Gard MLR2 feed over real TCP on 127.0.0.1: it splits the
 * stream on DC4, records every line with its arrival time, and answers each one as its policy says (ACK 0x06,
 * NAK 0x15, silence, or a late ACK).
 */
import type { Socket } from 'node:net';
import { waitFor } from '../../helpers/net.js';
import { type AckAnswer, answer, TcpAckPeer } from './tcp-ack-peer.js';

/** The MLR2 heartbeat line as the automation side receives it (the computer-port test frame). */
export const HEARTBEAT_LINE = '1011           @    ';

export type Mlr2Answer = AckAnswer;

export interface ReceivedLine {
  /** The line without its DC4. */
  readonly text: string;
  readonly at: number;
}

/** `copy` counts transmissions of the same text so far (1 = first). */
export type Mlr2Policy = (text: string, copy: number) => Mlr2Answer;

export class Mlr2Peer extends TcpAckPeer {
  readonly lines: ReceivedLine[] = [];
  policy: Mlr2Policy = () => 'ack';

  /** Lines that are not heartbeats. */
  events(): string[] {
    return this.lines.map((l) => l.text).filter((t) => !t.startsWith('1011'));
  }

  heartbeats(): number {
    return this.lines.filter((l) => l.text === HEARTBEAT_LINE).length;
  }

  /** The distinct lines in order of first arrival (a re-sent line counts once). */
  distinctEvents(): string[] {
    return [...new Set(this.events())];
  }

  async waitForEvents(count: number, timeoutMs = 5000): Promise<void> {
    await waitFor(() => this.events().length >= count, timeoutMs, 5);
  }

  protected reader(socket: Socket): (chunk: Buffer) => void {
    let buffered = '';
    return (chunk) => {
      buffered += chunk.toString('latin1');
      for (let end = buffered.indexOf('\x14'); end >= 0; end = buffered.indexOf('\x14')) {
        const text = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        this.lines.push({ text, at: performance.now() });
        answer(socket, this.policy(text, this.copy(text)));
      }
    };
  }
}
