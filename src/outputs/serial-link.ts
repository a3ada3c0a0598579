/**
 * Serial COM link of a type 3 output: the automation software's computer port on a serial line (docs/outputs.md
 * §Serial). The line is the serial port layer's (hw/serial, given as a SerialLineFactory): it reopens a lost device
 * by itself with backoff, and this link only reports up and down to its output (LinkDelivery, OutputRunner), which
 * keeps its own durable outbox, ACK timeout, retries, heartbeat and failed/restored states exactly as over TCP.
 */
import { VigilError } from '../core/errors.js';
import type { SerialLine, SerialLineFactory, SerialLineOptions } from '../core/serial.js';
import { defaultOutputSerial, type OutputSettings } from '../settings/schema-outputs.js';
import type { ByteLink } from './byte-link.js';

/** The serial line a type 3 output's settings describe (`identificator`: the device path). */
export function outputLineOptions(settings: OutputSettings): SerialLineOptions {
  const line = settings.serial ?? defaultOutputSerial();
  return {
    path: settings.identificator,
    baudRate: line.baud_rate,
    dataBits: line.data_bits,
    parity: line.parity,
    stopBits: line.stop_bits,
    flowControl: line.flow_control,
    owner: `out:${settings.id}`,
  };
}

export class SerialLink implements ByteLink {
  readonly framing = 'stream' as const;
  readonly description: string;
  private readonly options: SerialLineOptions;
  private readonly factory: SerialLineFactory;
  private line: SerialLine | null = null;
  private unsubscribe: Array<() => void> = [];
  private dataListener: (chunk: Buffer) => void = () => undefined;
  private closeListener: (reason: string) => void = () => undefined;

  constructor(options: SerialLineOptions, factory: SerialLineFactory) {
    this.options = options;
    this.factory = factory;
    this.description = `serial ${options.path}`;
  }

  get connected(): boolean {
    return this.line?.isOpen ?? false;
  }

  /** The first call opens the line; later calls (the output's reconnects) resolve once the line has reopened. */
  async connect(): Promise<void> {
    let line = this.line;
    if (!line) {
      line = this.factory(this.options);
      this.line = line;
      this.unsubscribe = [
        line.on('data', (chunk) => this.dataListener(chunk)),
        line.on('lost', (reason) => this.closeListener(reason)),
      ];
      await line.start();
    }
    if (!line.isOpen)
      throw new VigilError('SERVICE_FAILED', `cannot open ${this.description} (the port is retried by itself)`);
  }

  write(bytes: Buffer): void {
    const line = this.line;
    if (!line?.isOpen) throw new VigilError('SERVICE_FAILED', `${this.description} is not open`);
    line.write(bytes);
  }

  onData(listener: (chunk: Buffer) => void): void {
    this.dataListener = listener;
  }

  onClose(listener: (reason: string) => void): void {
    this.closeListener = listener;
  }

  async close(): Promise<void> {
    const line = this.line;
    this.line = null;
    for (const off of this.unsubscribe.splice(0)) off();
    await line?.stop();
  }
}
