/**
 * The far end of a COM line in the output tests (a real pty pair, socat): the port opened at 9,600 baud,
 * each chunk handed to the subclass, and the serial lines the outputs get, with backoffs short enough
 * for a test.
 */
import { SerialPort } from 'serialport';
import { serialLineFactory } from '../../../hw/serial/index.js';
import type { HealthRegistry } from '../../../src/core/health.js';
import type { Logger } from '../../../src/core/logger.js';
import { HEARTBEAT_LINE } from './mlr2-peer.js';

export abstract class SerialFarEnd {
  private port: SerialPort | null = null;

  async open(path: string): Promise<void> {
    const port = new SerialPort({ path, baudRate: 9600, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
    port.on('error', () => undefined);
    port.on('data', (chunk: Buffer) => this.received(chunk, (bytes) => port.write(bytes)));
    this.port = port;
  }

  async close(): Promise<void> {
    const port = this.port;
    this.port = null;
    if (port?.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
  }

  /** What arrived on the line; `reply` writes back on it. */
  protected abstract received(chunk: Buffer, reply: (bytes: Buffer) => void): void;
}

/** MLR2 automation software on the far end: collects DC4-terminated lines, answers ACK unless told to be silent. */
export class SerialAutomation extends SerialFarEnd {
  readonly lines: string[] = [];
  answering = true;
  private pending = '';

  protected received(chunk: Buffer, reply: (bytes: Buffer) => void): void {
    this.pending += chunk.toString('latin1');
    let end: number;
    while ((end = this.pending.indexOf('\x14')) >= 0) {
      this.lines.push(this.pending.slice(0, end));
      this.pending = this.pending.slice(end + 1);
      if (this.answering) reply(Buffer.from([0x06]));
    }
  }

  /** The lines that are not heartbeats. */
  events(): string[] {
    return this.lines.filter((l) => l !== HEARTBEAT_LINE);
  }
}

/** The serial lines for a test's outputs: reopened after 100-400 ms, metrics every 50 ms. */
export function testSerialLines(deps: {
  health: HealthRegistry;
  logger: Logger;
}): ReturnType<typeof serialLineFactory> {
  return serialLineFactory({ ...deps, backoffMinMs: 100, backoffMaxMs: 400, metricsIntervalMs: 50 });
}
