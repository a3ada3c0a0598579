/**
 * The TCP side shared by the test stand-ins for automation software that reads a one-byte-ACK feed (MLR2, Ademco 685)
 * over real TCP on 127.0.0.1: listening on a kernel-chosen port (or the same one again after an outage), counting
 * connections, counting copies of each message text, and answering a message as a policy says.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { LOOPBACK } from '../../helpers/net.js';

/** 'drop' cuts the connection instead of answering. */
export type AckAnswer = 'ack' | 'nak' | 'silent' | 'drop' | { lateAckMs: number };

/** Writes the answer (ACK 0x06, NAK 0x15, nothing, a cut, or a late ACK) to a socket or another byte sink. */
export function answer(
  target: { write(b: Buffer): unknown; destroy(): unknown; readonly destroyed?: boolean },
  reply: AckAnswer,
): void {
  // A late ACK to a connection closed meanwhile is lost, as on a real line.
  if (reply === 'ack') target.write(Buffer.from([0x06]));
  else if (reply === 'nak') target.write(Buffer.from([0x15]));
  else if (reply === 'drop') target.destroy();
  else if (reply !== 'silent') setTimeout(() => target.destroyed || target.write(Buffer.from([0x06])), reply.lateAckMs);
}

export abstract class TcpAckPeer {
  connections = 0;
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

  /** How many times this text has arrived so far, this one included (1 = first). */
  protected copy(text: string): number {
    const copy = (this.copies.get(text) ?? 0) + 1;
    this.copies.set(text, copy);
    return copy;
  }

  /** The reader of one connection: frames its bytes and answers each message. */
  protected abstract reader(socket: Socket): (chunk: Buffer) => void;

  private accept(socket: Socket): void {
    this.connections++;
    this.sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('data', this.reader(socket));
    socket.on('error', () => undefined);
    socket.on('close', () => this.sockets.delete(socket));
  }
}
