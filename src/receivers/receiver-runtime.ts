/**
 * The parts the receivers share for the gateway's whole life, across receiver restarts: the
 * group-committed ingest, its bus (the tracker and outputs subscribe there) and the live device
 * links the management API reaches devices through. build() makes the receiver Services from the
 * current settings; the gateway's ServiceGroup calls it on every (re)start.
 */
import { TypedBus } from '../core/bus.js';
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/errors.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { PipelineMetrics } from '../core/pipeline-metrics.js';
import type { SerialLineFactory } from '../core/serial.js';
import type { Service } from '../core/service.js';
import { StoreDeviceKeys, type DeviceKeyStore } from '../devices/device-keys.js';
import { IdentityConflicts } from '../devices/identity-conflicts.js';
import { LinkRegistry, type LinkObjectReader } from '../devices/link-registry.js';
import type { OverrideResolver } from '../devices/registry-command-port.js';
import type { TimerApi } from '../protocols/device-link/command-queue.js';
import { EventIngest, type EventIngestDeps } from '../ingest/event-ingest.js';
import type { IngestEvents } from '../ingest/types.js';
import { borrowedWriter, type JournalWriter } from '../writer/wire.js';
import type { ReceiversSettings } from '../settings/schema.js';
import { Admission } from '../core/admission/admission.js';
import { connectionBudgetFor, readFdLimit } from '../core/admission/fd-limit.js';
import { ADMISSION_DEFAULTS } from '../settings/schema-admission.js';
import { ComReceiver } from './com-receiver.js';
import { NewObjectGate, type AccountRecord } from './new-object-gate.js';
import { receiverOptions, type ReceiverOptions } from './receiver-options.js';
import { buildModemReceivers } from './modem/build-modem-receivers.js';
import type { MetaPort } from './modem/learned-caller-store.js';
import { PinLedger } from './modem/pin-ledger.js';
import { TcpReceiver } from './tcp-receiver.js';
import { UdpReceiver } from './udp-receiver.js';

export interface ReceiverRuntimeDeps {
  /** The store (src/store/store.ts Store fits): its reads, and the writes this runtime sends its one writer. */
  readonly store: {
    /**
     * `all()`: the addresses objects last reported from, known sources for the per-source rules (docs/receivers.md);
     * `findByUid()`: the device link's enrolment rule (docs/device-link.md §4.4).
     */
    readonly objects: LinkObjectReader & {
      all?(): Iterable<{ readonly remoteAddress?: string | null } & AccountRecord>;
      findByUid?(uid: string): unknown;
      findByAccount?(account: string, receiverId: number): readonly { readonly uid: string | null }[];
    };
    /** Where modem receivers keep the callers learned from encrypted SMS (docs/modem.md §Test calls). */
    readonly meta?: Pick<MetaPort, 'get'>;
    /** The device-link keys (docs/device-link.md §4.4); without them keys live in memory (tests of other parts). */
    readonly deviceKeys?: DeviceKeyStore['deviceKeys'];
    /** The writes: commands to the store's one writer (the Store's `write` view fits). */
    readonly write?: {
      readonly meta: Pick<MetaPort, 'set'>;
      readonly deviceKeys: DeviceKeyStore['write']['deviceKeys'];
    };
    readonly overrides?: OverrideResolver;
    /** The ingest drains its last batch to the writer before the store closes it (Store.stop). */
    onStop?(hook: () => Promise<void>): () => void;
  };
  /** The store's single writer (docs/writer.md), shared: the store closes it. */
  readonly writer: JournalWriter;
  readonly health: HealthRegistry;
  readonly clock: Clock;
  readonly logger: Logger;
  /** database.device_session_log_count, read when a session row is opened. */
  readonly sessionLogCount?: () => number;
  readonly options?: Partial<ReceiverOptions>;
  readonly timers?: TimerApi;
  /** Passed to the ingest: the tracker's ignorable startup events, flagged by the journal writer. */
  readonly startupRules?: EventIngestDeps['startupRules'];
  /** Commit durations and the time from each submit until its frames may be ACKed (GET /metrics, docs/metrics.md). */
  readonly pipeline?: PipelineMetrics;
  /** The serial port layer (hw/serial), for COM and modem receivers; src/main.ts passes it in. */
  readonly serial?: SerialLineFactory;
  /**
   * The gateway's one admission component (src/core/admission/), started by its owner. Absent (tests of
   * the receivers alone): the runtime makes one with the default limits and `options.connectionBudget`
   * sockets, and starts it at the first build().
   */
  readonly admission?: Admission;
}

/** A store without a meta table (tests of other parts): learned callers last until the receiver restarts. */
const NO_META: MetaPort = { get: () => null, set: async () => undefined };

export class ReceiverRuntime {
  readonly bus: TypedBus<IngestEvents>;
  readonly ingest: EventIngest;
  readonly links: LinkRegistry;
  /** Device identity conflicts on the link; main.ts points them at the internal-event recorder. */
  readonly conflicts: IdentityConflicts;
  readonly options: ReceiverOptions;
  /** SIM PINs entered, for the gateway's whole life (docs/modem.md §Start-up). */
  readonly pins = new PinLedger();
  /** Every door's limits and counts; its known sources are the device addresses (and users' logins). */
  readonly admission: Admission;
  /** Messages from accounts never seen take their new object from the admission budget. */
  readonly newObjects: NewObjectGate;
  private loaded = false;
  private readonly ownAdmission: boolean;
  private readonly deps: ReceiverRuntimeDeps;

  constructor(deps: ReceiverRuntimeDeps) {
    this.deps = deps;
    this.options = receiverOptions(deps.options);
    this.ownAdmission = deps.admission === undefined;
    const sockets = this.options.connectionBudget;
    this.admission =
      deps.admission ??
      new Admission({
        clock: deps.clock,
        limits: () => ({ ...ADMISSION_DEFAULTS, max_sockets: sockets ?? 0 }),
        autoSockets: () => connectionBudgetFor(readFdLimit()),
        health: deps.health,
      });
    this.newObjects = new NewObjectGate(this.admission);
    this.bus = new TypedBus<IngestEvents>(deps.logger.child('bus'));
    const store = deps.store;
    // The store closes its writer after this ingest's drain (Store.stop).
    this.ingest = new EventIngest({
      writer: borrowedWriter(deps.writer),
      logger: deps.logger.child('ingest'),
      bus: this.bus,
      health: deps.health,
      ...(deps.sessionLogCount ? { sessionLogCount: deps.sessionLogCount } : {}),
      ...(deps.startupRules ? { startupRules: deps.startupRules } : {}),
      ...(deps.pipeline ? { pipeline: deps.pipeline } : {}),
    });
    // The ingest drains its last batch before the store closes the writer and its own connection.
    store.onStop?.(() => this.ingest.close());
    this.conflicts = new IdentityConflicts({
      clock: deps.clock,
      logger: deps.logger.child('link-identity'),
      health: deps.health,
    });
    const write = store.write;
    const keyStore =
      'deviceKeys' in store && write
        ? // Read through the store at each use, like the objects below.
          new StoreDeviceKeys({
            deviceKeys: { get: (uid) => store.deviceKeys!.get(uid) },
            objects: {
              findByUid: (uid) => store.objects.findByUid?.(uid) ?? null,
              findByAccount: (account, receiverId) => store.objects.findByAccount?.(account, receiverId) ?? [],
            },
            write: { deviceKeys: { enrol: (uid, key) => write.deviceKeys.enrol(uid, key) } },
          })
        : undefined;
    this.links = new LinkRegistry({
      ...(keyStore ? { keys: keyStore } : {}),
      conflicts: this.conflicts,
      // Read through the store at each use: its repositories exist only while it is open.
      objects: { get: (id) => store.objects.get(id) },
      overrides: { resolve: (device, related) => store.overrides?.resolve(device, related) ?? null },
      clock: deps.clock,
      logger: deps.logger.child('links'),
      timeoutMs: this.options.commandTimeoutMs,
      ...(deps.timers ? { timers: deps.timers } : {}),
    });
  }

  /**
   * At the first build(): the device addresses and the accounts known from the store
   * (objects.remote_address, objects.account) are loaded, and an admission of the runtime's own is started.
   */
  private loadOnce(): void {
    if (this.loaded) return;
    this.loaded = true;
    if (this.ownAdmission) this.admission.begin();
    this.reloadObjects();
    this.bus.on('object-registered', ({ object }) => this.newObjects.note(object));
    this.deps.logger.info('admission', {
      sockets: this.admission.socketLimit,
      known_devices: this.admission.devices.size,
      known_accounts: this.newObjects.size,
    });
  }

  /** Reads the objects again (after retention deleted some: their accounts cost a new object again). */
  reloadObjects(): void {
    try {
      const objects = Array.from(this.deps.store.objects.all?.() ?? []);
      this.admission.devices.load(objects.map((o) => o.remoteAddress ?? null));
      this.newObjects.load(objects);
    } catch (err) {
      this.deps.logger.warn('cannot read the known objects', { error: describeError(err) });
    }
  }

  /** TCP, UDP, COM, then modem receivers, in settings order. */
  build(settings: ReceiversSettings): Service[] {
    this.loadOnce();
    const deps = {
      ingest: this.ingest,
      links: this.links,
      health: this.deps.health,
      clock: this.deps.clock,
      logger: this.deps.logger.child('rx'),
      options: this.options,
      admission: this.admission,
      newObjects: this.newObjects,
    };
    const serial = this.deps.serial;
    if (!serial && settings.com_receivers.length + settings.modem_receivers.length > 0) {
      throw new Error('COM or modem receivers configured but no serial port layer was given');
    }
    return [
      ...settings.tcp_receivers.map((r) => new TcpReceiver(r, deps)),
      ...settings.udp_receivers.map((r) => new UdpReceiver(r, deps)),
      ...(serial ? settings.com_receivers.map((r) => new ComReceiver(r, { ...deps, serial })) : []),
      ...(serial ? this.modems(settings, serial) : []),
    ];
  }

  private modems(settings: ReceiversSettings, serialLines: SerialLineFactory): Service[] {
    const store = this.deps.store;
    return buildModemReceivers(settings.modem_receivers, {
      serialLines,
      ingest: this.ingest,
      health: this.deps.health,
      logger: this.deps.logger.child('rx'),
      pins: this.pins,
      meta: () =>
        store.meta && store.write
          ? { get: (key) => store.meta!.get(key), set: (key, value) => store.write!.meta.set(key, value) }
          : NO_META,
    });
  }
}
