/**
 * Receivers over the REAL parts: a Store on a SQLite file in a temp dir with its writer thread, the real ingest and link
 * registry (ReceiverRuntime), receivers bound to 127.0.0.1. Plus message builders for tests.
 */
import { join } from 'node:path';
import { systemClock, type Clock } from '../../../src/core/clock.js';
import { HealthRegistry } from '../../../src/core/health.js';
import { createLogger, type Logger } from '../../../src/core/logger.js';
import type { TimerApi } from '../../../src/protocols/device-link/command-queue.js';
import { buildMessage, type BuildMessageOptions } from '../../../src/protocols/dc09/encoder.js';
import { encodeFrame } from '../../../src/protocols/dc09/frame.js';
import { Admission, type AdmissionLimits } from '../../../src/core/admission/admission.js';
import { ReceiverRuntime } from '../../../src/receivers/receiver-runtime.js';
import { ADMISSION_DEFAULTS } from '../../../src/settings/schema-admission.js';
import type { ReceiverOptions } from '../../../src/receivers/receiver-options.js';
import type { TcpReceiver } from '../../../src/receivers/tcp-receiver.js';
import type { UdpReceiver } from '../../../src/receivers/udp-receiver.js';
import {
  SOURCE_LIMIT_DEFAULTS,
  type IpReceiverSettings,
  type TcpReceiverSettings,
  type UdpReceiverSettings,
} from '../../../src/settings/schema-receivers.js';
import type { Store } from '../../../src/store/store.js';
import { storeWithWriter } from '../../../src/writer/store-with-writer.js';
import type { WriterProxy } from '../../../src/writer/writer-proxy.js';
import type { StoredEvent } from '../../../src/core/event-row.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** 16 ASCII characters: the AES-128 key itself (docs/dc09.md). */
export const PASSWORD16 = 'VigilTestKey0001';
/** 6 characters: the key is derived with SHA-256 (docs/dc09.md). */
export const PASSWORD6 = 'Pa55w0';

export function rxSettings(overrides: Partial<IpReceiverSettings> = {}): IpReceiverSettings {
  return {
    id: 1,
    name: 'test receiver',
    port: 0,
    bind_address: '127.0.0.1',
    require_encryption: false,
    time_window_past_s: 40,
    time_window_future_s: 20,
    check_plain_timestamps: false,
    accept_local_time: false,
    link_enrolment: 'open',
    tolerate_binary_crc: true,
    tolerate_cr_counted: true,
    tolerate_trailing_bytes: true,
    tolerate_empty_line: true,
    tolerate_text_account: false,
    ...overrides,
  };
}

/** A complete stored TCP receiver item (the per-source limits at their defaults unless given). */
export function tcpRxSettings(overrides: Partial<TcpReceiverSettings> = {}): TcpReceiverSettings {
  const { max_connections_per_source, max_accepts_per_source_per_min, first_frame_timeout_s } = SOURCE_LIMIT_DEFAULTS;
  return {
    ...rxSettings(overrides),
    max_connections_per_source,
    max_accepts_per_source_per_min,
    first_frame_timeout_s,
    ...overrides,
  };
}

/** A complete stored UDP receiver item. */
export function udpRxSettings(overrides: Partial<UdpReceiverSettings> = {}): UdpReceiverSettings {
  return {
    ...rxSettings(overrides),
    max_datagrams_per_source_per_s: SOURCE_LIMIT_DEFAULTS.max_datagrams_per_source_per_s,
    ...overrides,
  };
}

export interface Rig {
  readonly store: Store;
  readonly health: HealthRegistry;
  readonly runtime: ReceiverRuntime;
  /** The store's writer thread (the store closes it). */
  readonly writer: WriterProxy;
  readonly logs: string[];
  readonly logger: Logger;
  readonly dbPath: string;
  tcp(settings?: Partial<TcpReceiverSettings>): Promise<TcpReceiver>;
  udp(settings?: Partial<UdpReceiverSettings>): Promise<UdpReceiver>;
  /** Every journal row, oldest first. */
  events(): StoredEvent[];
  close(): Promise<void>;
}

export interface RigOptions {
  readonly receiver?: Partial<ReceiverOptions>;
  /** The admission's limits over the defaults (receiver.connectionBudget sets max_sockets). */
  readonly admission?: Partial<AdmissionLimits>;
  readonly timers?: TimerApi;
  readonly clock?: Clock;
}

export async function startRig(options: RigOptions = {}): Promise<Rig> {
  const dir = tempDir('vigil-rx-');
  const dbPath = join(dir.path, 'vigil.db');
  const logs: string[] = [];
  const logger = createLogger('test', (line) => logs.push(line), 'debug');
  const clock = options.clock ?? systemClock;
  const health = new HealthRegistry(() => clock.now());
  // The gateway's topology: the store and its one writer thread (src/writer/store-with-writer.ts).
  const { store, writer } = storeWithWriter(dbPath, logger, health, { clock });
  await store.start();
  const admission = new Admission({
    clock,
    limits: () => ({
      ...ADMISSION_DEFAULTS,
      max_sockets: options.receiver?.connectionBudget ?? 0,
      ...options.admission,
    }),
    autoSockets: () => 60_000,
    health,
    sweepMs: 200,
  });
  await admission.start();
  const runtime = new ReceiverRuntime({
    admission,
    store,
    writer,
    health,
    clock,
    logger,
    sessionLogCount: () => 3,
    options: { metricsIntervalMs: 50, ...options.receiver },
    ...(options.timers ? { timers: options.timers } : {}),
  });
  const started: Array<TcpReceiver | UdpReceiver> = [];
  const build = (kind: 'tcp' | 'udp', s: Partial<TcpReceiverSettings & UdpReceiverSettings>) => {
    const one = [rxSettings(s)];
    const list = {
      tcp_receivers: kind === 'tcp' ? one : [],
      udp_receivers: kind === 'udp' ? one : [],
      com_receivers: [],
      modem_receivers: [],
    };
    return runtime.build(list as never)[0] as TcpReceiver | UdpReceiver;
  };
  return {
    store,
    health,
    runtime,
    writer,
    logs,
    logger,
    dbPath,
    async tcp(s = {}) {
      const rx = build('tcp', s) as TcpReceiver;
      started.push(rx);
      await rx.start();
      return rx;
    },
    async udp(s = {}) {
      const rx = build('udp', s) as UdpReceiver;
      started.push(rx);
      await rx.start();
      return rx;
    },
    events() {
      return store.events.readAfter(0, 10_000);
    },
    async close() {
      for (const rx of started.reverse()) await rx.stop().catch(() => undefined);
      await admission.stop();
      await store.stop();
      dir.remove();
    },
  };
}

/** The port part of "host:port". */
export function portOf(address: string | null): number {
  if (!address) throw new Error('receiver not listening');
  return Number(address.slice(address.lastIndexOf(':') + 1));
}

type MessageInput = Partial<BuildMessageOptions> & Pick<BuildMessageOptions, 'token'>;

/** A DC-09 frame with test defaults: sequence 1, R1 L1, account 1234, timestamp now. */
export function message(input: MessageInput): Buffer {
  const defaults: Record<string, string> = { 'SIA-DCS': '#1234|Nri1/BA01', 'ADM-CID': '#1234|1130 01 015', NULL: '' };
  return buildMessage({
    sequence: 1,
    receiver: 1,
    line: 1,
    account: '1234',
    data: defaults[input.token] ?? '',
    timestamp: Date.now(),
    ...input,
  });
}

/** The exact plain ACK the receiver must send for a plain message (§5.5.3.1: fields echoed). */
export function plainAck(sequence = '0001', header = 'R1L1#1234'): Buffer {
  return encodeFrame(`"ACK"${sequence}${header}[]`);
}

/** A frame whose CRC is wrong (first CRC digit changed). */
export function corruptCrc(frame: Buffer): Buffer {
  const bad = Buffer.from(frame);
  bad[1] = bad[1] === 0x30 ? 0x31 : 0x30;
  return bad;
}
