/**
 * The main thread's half of a serial output's link (docs/outputs.md §Threads): the output runs in the output worker,
 * its line is a line of the serial port layer here, the one thread that uses serialport. The worker's RelayedLink
 * (worker/relayed-link.ts) asks to connect, write and close; this host keeps one SerialLink per output, runs those
 * requests on it and sends back the answers, the bytes read and the line lost. It never interprets the bytes.
 */
import { describeError } from '../core/errors.js';
import type { SerialLineFactory } from '../core/serial.js';
import type { OutputSettings } from '../settings/schema-outputs.js';
import { SerialLink, outputLineOptions } from './serial-link.js';
import type { LinkHostMessage, LinkWorkerMessage } from './worker/messages.js';

export class SerialLinkHost {
  private readonly outputs: readonly OutputSettings[];
  private readonly serial: SerialLineFactory;
  private readonly send: (message: LinkHostMessage) => void;
  private readonly links = new Map<number, SerialLink>();

  constructor(outputs: readonly OutputSettings[], serial: SerialLineFactory, send: (message: LinkHostMessage) => void) {
    this.outputs = outputs;
    this.serial = serial;
    this.send = send;
  }

  /** Runs the worker's request; every connect and close is answered, even when it fails. */
  handle(message: LinkWorkerMessage): void {
    const { output } = message;
    switch (message.type) {
      case 'link-connect': {
        const link = this.links.get(output) ?? this.open(output);
        if (typeof link === 'string') {
          this.send({ type: 'link-connected', output, seq: message.seq, error: link });
          return;
        }
        link.connect().then(
          () => this.send({ type: 'link-connected', output, seq: message.seq, error: null }),
          (err: unknown) => this.send({ type: 'link-connected', output, seq: message.seq, error: describeError(err) }),
        );
        return;
      }
      case 'link-write':
        try {
          this.links
            .get(output)
            ?.write(Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength));
        } catch {
          // The line went down between the worker's write and this one: its link-lost is on its way, and the
          // output's ACK timeout covers the message.
        }
        return;
      case 'link-close': {
        const link = this.links.get(output);
        this.links.delete(output);
        const closed = (): void => this.send({ type: 'link-closed', output, seq: message.seq });
        if (!link) closed();
        else link.close().then(closed, closed);
        return;
      }
    }
  }

  /** Closes every line (the worker stopped or died: a new worker connects again). */
  async closeAll(): Promise<void> {
    const links = [...this.links.values()];
    this.links.clear();
    await Promise.allSettled(links.map((link) => link.close()));
  }

  /** The output's line, or why there is none. */
  private open(output: number): SerialLink | string {
    const settings = this.outputs.find((o) => o.id === output);
    if (!settings) return `output ${output} is not a serial output of this worker`;
    const link = new SerialLink(outputLineOptions(settings), this.serial);
    link.onData((chunk) => this.send({ type: 'link-data', output, bytes: chunk }));
    link.onClose((reason) => this.send({ type: 'link-lost', output, reason }));
    this.links.set(output, link);
    return link;
  }
}
