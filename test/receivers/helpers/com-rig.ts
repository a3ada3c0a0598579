/**
 * A COM receiver over REAL parts: a socat pty pair (the gateway's end and the "panel" / legacy receiver end), the
 * serial port layer of hw/serial, the real ingest on a SQLite file. `peer` is the other end, opened with serialport.
 */
import { join } from 'node:path';
import { SerialPort } from 'serialport';
import { serialLineFactory } from '../../../hw/serial/index.js';
import type { Clock } from '../../../src/core/clock.js';
import { systemClock } from '../../../src/core/clock.js';
import { HealthRegistry } from '../../../src/core/health.js';
import { createLogger } from '../../../src/core/logger.js';
import type { ComReceiver } from '../../../src/receivers/com-receiver.js';
import { ReceiverRuntime } from '../../../src/receivers/receiver-runtime.js';
import { comReceiverSchema, type ComReceiverSettings } from '../../../src/settings/schema-receivers.js';
import type { Store } from '../../../src/store/store.js';
import { storeWithWriter } from '../../../src/writer/store-with-writer.js';
import type { StoredEvent } from '../../../src/core/event-row.js';
import { waitFor } from '../../helpers/net.js';
import { PtyPair } from '../../helpers/pty-pair.js';
import { tempDir } from '../../helpers/temp-dir.js';
import * as v from 'valibot';

export interface ComRig {
  readonly pty: PtyPair;
  readonly health: HealthRegistry;
  readonly store: Store;
  readonly receiver: ComReceiver;
  readonly received: Buffer[];
  readonly logs: string[];
  /** The far end of the line. */
  peer(): SerialPort;
  /** Opens the far end (again, after a replug). */
  openPeer(): Promise<void>;
  send(bytes: Buffer | string): void;
  /** Waits until the far end received exactly `count` bytes in all, and returns them. */
  replies(count: number, timeoutMs?: number): Promise<Buffer>;
  events(): StoredEvent[];
  close(): Promise<void>;
}

export async function startComRig(
  settings: Partial<ComReceiverSettings> & { protocol?: 'SIA-DC09' | 'MLR2' },
  clock: Clock = systemClock,
): Promise<ComRig> {
  const dir = tempDir('vigil-com-');
  const pty = new PtyPair();
  await pty.start();
  const logs: string[] = [];
  const logger = createLogger('test', (l) => logs.push(l), 'debug');
  const health = new HealthRegistry(() => clock.now());
  const { store, writer } = storeWithWriter(join(dir.path, 'vigil.db'), logger, health, { clock });
  await store.start();
  const runtime = new ReceiverRuntime({
    store,
    writer,
    health,
    clock,
    logger,
    options: { metricsIntervalMs: 50 },
    serial: serialLineFactory({ health, logger, backoffMinMs: 100, backoffMaxMs: 400, metricsIntervalMs: 50 }),
  });
  const parsed = v.parse(comReceiverSchema, { id: 3, name: 'COM line', port_id: pty.a, ...settings });
  const receiver = runtime.build({
    tcp_receivers: [],
    udp_receivers: [],
    com_receivers: [parsed],
    modem_receivers: [],
  })[0] as ComReceiver;
  await receiver.start();
  const received: Buffer[] = [];
  let port: SerialPort | null = null;
  const openPeer = async (): Promise<void> => {
    const p = new SerialPort({ path: pty.b, baudRate: parsed.baud_rate, autoOpen: false });
    await new Promise<void>((resolve, reject) => p.open((err) => (err ? reject(err) : resolve())));
    p.on('data', (chunk: Buffer) => received.push(chunk));
    p.on('error', () => undefined);
    port = p;
  };
  await openPeer();
  return {
    pty,
    health,
    store,
    receiver,
    received,
    logs,
    openPeer,
    peer: () => port!,
    send: (bytes) => void port!.write(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes),
    async replies(count, timeoutMs = 5000) {
      await waitFor(() => Buffer.concat(received).length >= count, timeoutMs);
      const all = Buffer.concat(received);
      if (all.length !== count)
        throw new Error(`expected ${count} reply bytes, got ${all.length}: ${all.toString('latin1')}`);
      return all;
    },
    events: () => store.events.readAfter(0, 10_000),
    async close() {
      await receiver.stop();
      const p = port as SerialPort | null;
      if (p?.isOpen) await new Promise<void>((resolve) => p.close(() => resolve()));
      await pty.close();
      await store.stop();
      dir.remove();
    },
  };
}
