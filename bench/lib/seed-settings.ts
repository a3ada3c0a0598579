/**
 * Writes receiver settings into a fresh data dir BEFORE the gateway's first start, through the
 * same SettingsService validation the API uses. The gateway then binds only these loopback ports
 * (the defaults would bind 0.0.0.0:10001) and needs no restart-services round trip. seedGateway
 * also writes outputs and registers known objects (panels that reported before this run).
 */
import { silentLogger } from '../../src/core/logger.js';
import { join } from 'node:path';
import { defaultValidationEnv } from '../../src/settings/environment.js';
import { SettingsService } from '../../src/settings/settings-service.js';
import { openDatabase } from '../../src/store/database.js';
import { createRepos } from '../../src/store/repos.js';
import { Store } from '../../src/store/store.js';
import { CommandClock } from '../../src/store/write-commands.js';

export interface ReceiverSpec {
  readonly id: number;
  readonly port: number;
  /** 6 or 16 characters: the receiver then also accepts AES (plain too, unless required). */
  readonly encryption_password?: string;
}

export interface SeedSpec {
  readonly tcp: readonly ReceiverSpec[];
  readonly udp: readonly ReceiverSpec[];
}

/**
 * A bench's whole fleet comes from one or a few loopback addresses: the per-source limits
 * (docs/receivers.md §Per-source limits), meant for a stranger on the internet, are set to their maximum.
 */
const FLEET_FROM_ONE_HOST: Record<string, Record<string, number>> = {
  tcp: { max_connections_per_source: 20_000, max_accepts_per_source_per_min: 100_000 },
  udp: { max_datagrams_per_source_per_s: 100_000 },
};

/** The admission budget (docs/security.md "Admission"), meant for strangers, is opened for a bench's fleet likewise. */
const ADMISSION_FOR_A_FLEET_FROM_ONE_HOST: Record<string, number> = {
  max_sockets_per_source: 1_000_000,
  udp_stranger_datagrams_per_s: 1_000_000,
  link_hellos_per_source_per_min: 100_000,
  link_stranger_hellos_per_s: 100_000,
  new_objects_per_source_per_hour: 1_000_000,
  new_objects_per_receiver_per_hour: 1_000_000,
  new_objects_per_hour: 1_000_000,
  enrolments_per_source_per_hour: 100_000,
  enrolments_per_hour: 1_000_000,
};

/** A panel that reported to receiver `receiverId` before this run, from `remoteAddress` ("ip:port"). */
export interface KnownObject {
  readonly account: string;
  readonly receiverId: number;
  readonly remoteAddress: string;
  /**
   * Supervised with this link-test period (s) and lost: its path went down for longer than its
   * timeout, as in a long power cut (docs/supervision.md). Absent: never supervised.
   */
  readonly lostWithPeriodS?: number;
}

export interface GatewaySeed extends SeedSpec {
  /** `fleet` (default): per-source limits at their maximum; `defaults`: the limits a real box ships with. */
  readonly sourceLimits?: 'fleet' | 'defaults';
  /** The `outputs` settings list, written with the receivers. */
  readonly outputs?: readonly Record<string, unknown>[];
  readonly objects?: readonly KnownObject[];
}

function list(
  kind: 'tcp' | 'udp',
  specs: readonly ReceiverSpec[],
  limits: GatewaySeed['sourceLimits'],
): Record<string, unknown>[] {
  return specs.map((r) => ({
    id: r.id,
    name: `bench ${kind} ${r.id}`,
    port: r.port,
    bind_address: '127.0.0.1',
    ...(limits === 'defaults' ? {} : FLEET_FROM_ONE_HOST[kind]),
    ...(r.encryption_password ? { encryption_password: r.encryption_password } : {}),
  }));
}

export function seedReceivers(dataDir: string, spec: SeedSpec): Promise<void> {
  return seedGateway(dataDir, spec);
}

export async function seedGateway(dataDir: string, spec: GatewaySeed): Promise<void> {
  const path = join(dataDir, 'vigil.db');
  const store = new Store(path, silentLogger);
  await store.start();
  try {
    const settings = new SettingsService({ store: store, env: defaultValidationEnv(), logger: silentLogger });
    await settings.start();
    const result = await settings.update({
      ...(spec.sourceLimits === 'defaults' ? {} : { admission: ADMISSION_FOR_A_FLEET_FROM_ONE_HOST }),
      receivers: {
        tcp_receivers: list('tcp', spec.tcp, spec.sourceLimits),
        udp_receivers: list('udp', spec.udp, spec.sourceLimits),
      },
      ...(spec.outputs ? { outputs: spec.outputs } : {}),
    });
    await settings.stop();
    if (!result.ok) throw new Error(`bench settings refused: ${result.errors.join('; ')}`);
  } finally {
    await store.stop();
  }
  if (spec.objects?.length) registerObjects(path, spec.objects);
}

/** Known objects as the writer registers them on first sight, all in one transaction (one flush). */
function registerObjects(path: string, objects: readonly KnownObject[]): void {
  const db = openDatabase(path);
  try {
    const repos = createRepos(db, new CommandClock());
    const at = Date.now();
    db.transaction(() => {
      for (const o of objects) {
        const { id } = repos.objects.upsertMain({
          account: o.account,
          receiverId: o.receiverId,
          receiverKind: 'tcp',
          transport: 'tcp',
          remoteAddress: o.remoteAddress,
          at,
        });
        if (o.lostWithPeriodS === undefined) continue;
        repos.objects.updateSupervision(id, {
          linkPeriodS: o.lostWithPeriodS,
          supervisionState: 'lost',
          restoreCount: 0,
        });
        repos.objects.setConnectionState(id, 'lost');
      }
    }).immediate();
  } finally {
    db.close();
  }
}
