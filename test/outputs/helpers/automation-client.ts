/**
 * A test stand-in for automation software that CONNECTS to a TCP server output (type 5) over real TCP on loopback:
 * it splits what it reads into messages (MLR2 lines end with DC4, JSON lines with LF, DC-09 frames are framed by
 * Vigil's receiver codec, Ademco 685 lines run from LF to CR), keeps every message byte for byte, and answers each
 * one as its policy says. The answer is the protocol's own: 0x06 for MLR2 and Ademco 685, `{"ack":<id>}` for JSON,
 * the DC-09 receiver's ACK (handleFrame) for DC-09.
 */
import { connect, type Socket } from 'node:net';
import { Dc09Framer, handleFrame } from '../../../src/protocols/dc09/index.js';
import { waitFor } from '../../helpers/net.js';

export type ClientProtocol = 'MLR2' | 'JSON' | 'SIA-DC09' | 'ADEMCO-685';
/** 'ack' answers, 'silent' reads without answering, 'close' disconnects on receipt (without answering). */
export type ClientAnswer = 'ack' | 'silent' | 'close';

export interface AutomationClientOptions {
  readonly protocol: ClientProtocol;
  readonly port: number;
  readonly host?: string;
  /** The client's own address (127.0.0.2 for a stranger on loopback). */
  readonly localAddress?: string;
  /** DC-09: the receiver clock for the time test. */
  readonly now?: () => number;
}

export class AutomationClient {
  readonly messages: Buffer[] = [];
  /** Every answer written, byte for byte. */
  readonly replies: Buffer[] = [];
  policy: (message: Buffer, index: number) => ClientAnswer = () => 'ack';
  closed = false;
  private readonly o: AutomationClientOptions;
  private socket: Socket | null = null;
  private partial = Buffer.alloc(0);
  private readonly framer = new Dc09Framer();

  constructor(options: AutomationClientOptions) {
    this.o = options;
  }

  connect(): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = connect({
        host: this.o.host ?? '127.0.0.1',
        port: this.o.port,
        ...(this.o.localAddress ? { localAddress: this.o.localAddress } : {}),
      });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.removeListener('error', reject);
        socket.on('error', () => undefined);
        resolve();
      });
      socket.on('data', (chunk: Buffer) => this.read(chunk));
      socket.on('close', () => (this.closed = true));
      this.socket = socket;
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  /** Messages as text (latin1 but for JSON's UTF-8), without their framing bytes for MLR2, JSON and Ademco 685. */
  texts(): string[] {
    return this.messages.map((m) => m.toString(this.o.protocol === 'JSON' ? 'utf8' : 'latin1'));
  }

  /** JSON lines parsed. */
  json(): Array<Record<string, unknown>> {
    return this.texts().map((t) => JSON.parse(t) as Record<string, unknown>);
  }

  async waitForMessages(count: number, timeoutMs = 5000): Promise<void> {
    await waitFor(() => this.messages.length >= count, timeoutMs, 5);
  }

  private read(chunk: Buffer): void {
    if (this.o.protocol === 'SIA-DC09') {
      for (const item of this.framer.push(chunk)) if (item.kind === 'frame') this.receive(item.raw, item.body);
      return;
    }
    const end = this.o.protocol === 'MLR2' ? 0x14 : this.o.protocol === 'ADEMCO-685' ? 0x0d : 0x0a;
    // Ademco 685 lines start with LF (docs/outputs.md §Ademco 685): kept out of the message like the terminator.
    const start = this.o.protocol === 'ADEMCO-685' ? 1 : 0;
    let data = Buffer.concat([this.partial, chunk]);
    for (let at = data.indexOf(end); at >= 0; at = data.indexOf(end)) {
      this.receive(data.subarray(start, at), null);
      data = data.subarray(at + 1);
    }
    this.partial = Buffer.from(data);
  }

  private receive(message: Buffer, dc09Body: Buffer | null): void {
    const index = this.messages.push(Buffer.from(message)) - 1;
    const answer = this.policy(message, index);
    if (answer === 'close') {
      this.close();
      return;
    }
    if (answer === 'silent' || !this.socket) return;
    const reply = this.answerTo(message, dc09Body);
    if (!reply) return;
    this.replies.push(reply);
    this.socket.write(reply);
  }

  private answerTo(message: Buffer, dc09Body: Buffer | null): Buffer | null {
    if (this.o.protocol === 'MLR2' || this.o.protocol === 'ADEMCO-685') return Buffer.from([0x06]);
    if (this.o.protocol === 'JSON') {
      const id = (JSON.parse(message.toString('utf8')) as { id: unknown }).id;
      return Buffer.from(`${JSON.stringify({ ack: id })}\n`);
    }
    if (!dc09Body) return null;
    return handleFrame(dc09Body, {
      now: (this.o.now ?? Date.now)(),
      key: null,
      requireEncryption: false,
      checkPlainTimestamps: true,
      acceptLocalTime: false,
    }).reply;
  }
}
