/**
 * The serial seam: what receivers and outputs need from a serial port, and what the port layer in
 * hw/serial implements (docs/serial.md). Nothing in src/ imports hw/; src/main.ts passes a
 * SerialLineFactory and a SerialPortLister in.
 *
 * A SerialLine is one configured device kept open for the life of its owner: it opens in start(),
 * and when the device fails or disappears (USB adapter pulled, pty closed) it is reopened with
 * backoff, 1 s doubling to 30 s, until it comes back. Its state and figures are one component of
 * the health registry.
 */
export type Parity = 'none' | 'even' | 'odd';
export type FlowControl = 'none' | 'rts-cts';

export interface SerialLineOptions {
  /** Device path as configured (`port_id`); a /dev/serial/by-id link is followed at every open. */
  readonly path: string;
  readonly baudRate: number;
  readonly dataBits: 7 | 8;
  readonly parity: Parity;
  readonly stopBits: 1 | 2;
  readonly flowControl: FlowControl;
  /** Who uses it, for logs and the health detail (e.g. `rx:com:3`). */
  readonly owner: string;
  /** The receiver that reads the line, if one does: the port's health entry carries it (`receiver_id`), so a caller
   * limited to some receivers sees only their ports in /api/status (docs/api.md). */
  readonly receiverId?: number;
}

/** Plain counters since the line was built; the health entry copies them (metrics, snake_case). */
export interface SerialLineCounters {
  bytesIn: number;
  bytesOut: number;
  /** Bytes or lines the protocol on the line could not frame (garbage skipped, over-long or corrupt lines). */
  framingErrors: number;
  /** Times the device was opened again after it had failed or disappeared. */
  reopens: number;
}

// biome-ignore-start lint/suspicious/noConfusingVoidType: `void` marks an event without a payload (TypedBus).
export interface SerialLineEvents {
  /** The device is open (first time or again): bytes may be written. */
  open: void;
  data: Buffer;
  /** The device was lost (reason); a reopen is scheduled. Not emitted by stop(). */
  lost: string;
  /** The write buffer emptied after write() returned false. */
  drain: void;
}
// biome-ignore-end lint/suspicious/noConfusingVoidType: see above

export interface SerialLine {
  readonly path: string;
  /** Health component name: `serial:<path>`. */
  readonly healthName: string;
  readonly isOpen: boolean;
  readonly counters: Readonly<SerialLineCounters>;
  /** First open attempt; resolves either way (a missing device is reported and retried, never thrown). */
  start(): Promise<void>;
  /** Closes the device and stops reopening; idempotent. */
  stop(): Promise<void>;
  /** false: not open (nothing written) or above the write high-water mark (`drain` follows). */
  write(data: Buffer): boolean;
  /** Stop / restart delivering `data` (backpressure). */
  pause(): void;
  resume(): void;
  /** The protocol on the line counts what it could not frame here, so the port's health shows it. */
  countFramingErrors(count: number): void;
  /** Closes the device and opens it again now (a modem that stopped answering); backoff as after a loss. */
  reopen(reason: string): void;
  /** Modem-control lines; a pseudo-terminal has none, "Inappropriate ioctl" is ignored there. */
  setControl(lines: { dtr?: boolean; rts?: boolean }): Promise<void>;
  /** Returns the unsubscribe function. */
  on<K extends keyof SerialLineEvents>(event: K, listener: (value: SerialLineEvents[K]) => void): () => void;
}

export type SerialLineFactory = (options: SerialLineOptions) => SerialLine;

/** One serial device found on the box (`GET /api/serial-ports`, `vigil ports`). */
export interface SerialPortInfo {
  /** The stable name to put in `port_id` when there is one (/dev/serial/by-id/...), else the device path. */
  readonly port_id: string;
  /** The device node (/dev/ttyUSB0) the path resolves to; null when a configured path does not exist. */
  readonly device: string | null;
  /** Every /dev/serial/by-id name that points at this device. */
  readonly by_id: readonly string[];
  /** Where it was found: by-id link, a device glob, or only in the settings. */
  readonly source: 'by-id' | 'device' | 'configured';
  /** Receivers and outputs whose settings name it (`receivers.com_receivers[0]`, `outputs[2]`). */
  readonly used_by: readonly string[];
}

/** `configured`: paths the settings name, each with who uses it. */
export type SerialPortLister = (configured: ReadonlyMap<string, readonly string[]>) => Promise<SerialPortInfo[]>;
