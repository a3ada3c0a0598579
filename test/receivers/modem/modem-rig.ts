/**
 * A modem receiver over the REAL parts: the simulated modem (src/sim/modem) on one end of a socat
 * pseudo-terminal pair, the port layer (hw/serial PortLine) and the modem receiver on the other,
 * the real ingest and a Store on a SQLite file.
 */
import { join } from 'node:path';
import { SerialPort } from 'serialport';
import { PortLine } from '../../../hw/serial/port-line.js';
import { HealthRegistry, type ComponentHealth } from '../../../src/core/health.js';
import { createLogger, type Logger } from '../../../src/core/logger.js';
import { HealthEventBridge } from '../../../src/internal-events/health-events.js';
import type { RaiseInternalEvent } from '../../../src/internal-events/recorder.js';
import { metaCallerStore } from '../../../src/receivers/modem/learned-caller-store.js';
import { ModemReceiver } from '../../../src/receivers/modem/modem-receiver.js';
import { PinLedger } from '../../../src/receivers/modem/pin-ledger.js';
import { ReceiverRuntime } from '../../../src/receivers/receiver-runtime.js';
import type { ModemReceiverSettings } from '../../../src/settings/schema-receivers.js';
import { ModemSimulator, type ModemSimOptions } from '../../../src/sim/modem/modem-sim.js';
import type { Store } from '../../../src/store/store.js';
import { storeWithWriter } from '../../../src/writer/store-with-writer.js';
import type { StoredEvent } from '../../../src/core/event-row.js';
import { waitFor } from '../../helpers/net.js';
import { PtyPair } from '../../helpers/pty-pair.js';
import { tempDir } from '../../helpers/temp-dir.js';

export function modemSettings(overrides: Partial<ModemReceiverSettings> = {}): ModemReceiverSettings {
  return {
    id: 7,
    name: 'gsm',
    port_id: '/dev/null',
    baud_rate: 115200,
    poll_interval_s: 30,
    min_csq: 10,
    known_callers: [],
    ...overrides,
  };
}

export interface ModemRig {
  readonly store: Store;
  readonly runtime: ReceiverRuntime;
  readonly health: HealthRegistry;
  readonly pty: PtyPair;
  readonly logs: string[];
  readonly raised: Array<{ type: string; detail: string | null }>;
  /** Every state change of the receiver's health entry: "state: detail". */
  readonly history: string[];
  sim: ModemSimulator;
  receiver: ModemReceiver;
  /** (Re)starts the modem side on the pty (after a replug). */
  plugModem(options?: ModemSimOptions): Promise<void>;
  unplugModem(): Promise<void>;
  /** A new receiver on the same store, pins and pty (a restart of the services). */
  restartReceiver(settings?: Partial<ModemReceiverSettings>): Promise<void>;
  events(): StoredEvent[];
  component(): ComponentHealth | undefined;
  waitState(state: string, detail?: RegExp, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface ModemRigOptions {
  readonly sim?: ModemSimOptions;
  readonly settings?: Partial<ModemReceiverSettings>;
  readonly commandTimeoutMs?: number;
  /** The receiver's clock (receivedAt of its items, call dedupe); default Date.now. */
  readonly now?: () => number;
}

async function openPort(path: string): Promise<SerialPort> {
  const port = new SerialPort({ path, baudRate: 115200, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  return port;
}

export async function startModemRig(options: ModemRigOptions = {}): Promise<ModemRig> {
  const dir = tempDir('vigil-modem-');
  const logs: string[] = [];
  const logger: Logger = createLogger('test', (line) => logs.push(line), 'debug');
  const health = new HealthRegistry();
  const { store, writer } = storeWithWriter(join(dir.path, 'vigil.db'), logger, health);
  await store.start();
  const runtime = new ReceiverRuntime({
    store,
    writer,
    health,
    clock: { now: () => Date.now() },
    logger,
    sessionLogCount: () => 3,
  });
  const pty = new PtyPair();
  await pty.start();
  const pins = new PinLedger();
  const raised: Array<{ type: string; detail: string | null }> = [];
  // The real bridge from health to internal events (docs/internal-events.md §Health).
  const raise: RaiseInternalEvent = async (type, o = {}) => {
    raised.push({ type, detail: o.detail ?? null });
    return null;
  };
  const bridge = new HealthEventBridge({ health, raise, logger });
  await bridge.start();
  let modemPort: SerialPort | null = null;
  let settings = modemSettings({ port_id: pty.a, ...options.settings });
  const build = (): ModemReceiver =>
    new ModemReceiver(settings, {
      line: new PortLine(
        {
          path: pty.a,
          baudRate: settings.baud_rate,
          dataBits: 8,
          parity: 'none',
          stopBits: 1,
          flowControl: 'none',
          owner: 'rx:modem:7',
        },
        { health, logger, backoffMinMs: 100, backoffMaxMs: 400, metricsIntervalMs: 100 },
      ),
      ingest: runtime.ingest,
      health,
      logger,
      pins,
      learnedCallers: metaCallerStore(
        () => ({ get: (key) => store.meta.get(key), set: (key, value) => store.write.meta.set(key, value) }),
        settings.id,
      ),
      ...(options.now ? { now: options.now } : {}),
      // 10 s: on a 2-core host loaded far beyond its cores a simulated modem's answer has taken over 3 s; a test of the
      // timeout itself sets its own (modem-faults.test.ts).
      commandTimeoutMs: options.commandTimeoutMs ?? 10_000,
      metricsIntervalMs: 50,
    });
  const history: string[] = [];
  health.onChange((c) => {
    if (c.name.startsWith('rx:modem:')) history.push(`${c.state}: ${c.detail ?? ''}`);
  });
  const rig: ModemRig = {
    store,
    runtime,
    health,
    pty,
    logs,
    raised,
    history,
    sim: new ModemSimulator(() => undefined, options.sim),
    receiver: build(),
    async plugModem(simOptions = options.sim) {
      await pty.start();
      modemPort = await openPort(pty.b);
      const port = modemPort;
      rig.sim = new ModemSimulator((text) => port.write(text, 'latin1'), simOptions);
      port.on('data', (chunk: Buffer) => rig.sim.feed(chunk));
    },
    async unplugModem() {
      rig.sim.stop();
      const port = modemPort;
      modemPort = null;
      if (port?.isOpen) await new Promise<void>((r) => port.close(() => r()));
      await pty.stop();
    },
    async restartReceiver(overrides = {}) {
      await rig.receiver.stop();
      settings = { ...settings, ...overrides };
      rig.receiver = build();
      await rig.receiver.start();
    },
    events: () => store.events.readAfter(0, 10_000),
    component: () => health.get(rig.receiver.healthName),
    async waitState(state, detail, timeoutMs = 20_000) {
      await waitFor(
        () => {
          const c = health.get(rig.receiver.healthName);
          return c !== undefined && c.state === state && (detail === undefined || detail.test(c.detail ?? ''));
        },
        timeoutMs,
        10,
      ).catch(() => {
        const c = health.get(rig.receiver.healthName);
        throw new Error(
          `receiver not ${state} ${detail ?? ''}: ${c?.state} ${c?.detail}\nlast log lines:\n${logs.slice(-25).join('\n')}`,
        );
      });
    },
    async close() {
      await rig.receiver.stop().catch(() => undefined);
      await bridge.stop();
      rig.sim.stop();
      if (modemPort?.isOpen) await new Promise<void>((r) => modemPort!.close(() => r()));
      await runtime.ingest.close();
      await pty.close();
      await store.stop();
      dir.remove();
    },
  };
  await rig.plugModem();
  await rig.receiver.start();
  return rig;
}
