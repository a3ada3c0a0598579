/**
 * A test stand-in for automation software reading a Sur-Gard MLR2 feed over real TCP on 127.0.0.1: it splits the
 * stream on DC4, records every line with its arrival time, and answers each one as its policy says (ACK 0x06,
 * NAK 0x15, silence, or a late ACK).
 */
import { createServer, type Server, type Socket } from 'node:net';
import { LOOPBACK, waitFor } from '../../helpers/net.js';

/** The MLR2 heartbeat line as the automation side receives it (the computer-port test frame). */
export const HEARTBEAT_LINE = '1011           @    ';

/** 'drop' cuts the connection instead of answering. */
export type Mlr2Answer = 'ack' | 'nak' | 'silent' | 'drop' | { lateAckMs: number };

export interface ReceivedLine {
  /** The line without its DC4. */
  readonly text: string;
  readonly at: number;
}

/** `copy` counts transmissions of the same text so far (1 = first). */
export type Mlr2Policy = (text: string, copy: number) => Mlr2Answer;

export class Mlr2Peer {
  readonly lines: ReceivedLine[] = [];
  connections = 0;
  policy: Mlr2Policy = () => 'ack';
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly copies = new Map<string, number>();
  private portNumber = 0;

  get port(): number {
    return this.portNumber;
  }

  /** Listens on a kernel-chosen port, or on `port` again after close(). */
  async listen(port = 0): Promise<number> {
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, LOOPBACK, () => resolve());
    });
    this.server = server;
    const address = server.address();
    this.portNumber = typeof address === 'object' && address ? address.port : 0;
    return this.portNumber;
  }

  /** Stops listening and cuts every connection (an outage of the automation computer). */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

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

  private accept(socket: Socket): void {
    this.connections++;
    this.sockets.add(socket);
    socket.setNoDelay(true);
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      for (let end = buffered.indexOf('\x14'); end >= 0; end = buffered.indexOf('\x14')) {
        const text = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        this.lines.push({ text, at: performance.now() });
        const copy = (this.copies.get(text) ?? 0) + 1;
        this.copies.set(text, copy);
        this.answer(socket, this.policy(text, copy));
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => this.sockets.delete(socket));
  }

  private answer(socket: Socket, answer: Mlr2Answer): void {
    if (answer === 'ack') socket.write(Buffer.from([0x06]));
    else if (answer === 'nak') socket.write(Buffer.from([0x15]));
    else if (answer === 'drop') socket.destroy();
    else if (answer !== 'silent')
      setTimeout(() => socket.destroyed || socket.write(Buffer.from([0x06])), answer.lateAckMs);
  }
}
