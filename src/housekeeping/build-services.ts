/**
 * Wiring of the device status output, the retention job and the MySQL sync for the composition
 * root (src/main.ts), rebuilt from the current settings at every (re)start of the services group:
 * a change of `database` or `device_status_output` takes effect at GET /api/restart-services
 * (docs/mysql-sync.md §Settings changes, docs/status-output.md). The retention ages are read at
 * each pass and apply without a restart.
 */
import { readVersion } from '../version.js';
import type { TypedBus } from '../core/bus.js';
import type { Clock } from '../core/clock.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import type { IngestEvents } from '../ingest/types.js';
import type { Settings } from '../settings/schema.js';
import type { Admission } from '../core/admission/admission.js';
import { feedFromIngest, snapshotSource, type StatusSink } from '../status-output/feed.js';
import { StatusOutput } from '../status-output/status-output.js';
import type { FleetReport } from '../store/mysql-sync/remote-schema-v3.js';
import { MysqlSync } from '../store/mysql-sync/mysql-sync.js';
import { syncedEventFloor } from '../store/mysql-sync/replicate.js';
import type { Store } from '../store/store.js';
import { RetentionJob } from './retention-job.js';
import { retentionPolicy } from './retention.js';

/** Where the tracker's tapped raise function finds the status output of the current run. */
export class StatusSlot {
  sink: StatusSink | null = null;
}

export interface HousekeepingDeps {
  readonly settings: { current(): Settings };
  readonly store: Store;
  /** The ingest bus (receivers' runtime); without it the status output sends snapshots and tracker changes only. */
  readonly bus?: TypedBus<IngestEvents>;
  readonly statusSlot: StatusSlot;
  readonly health: HealthRegistry;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The status output's connections take their share of it (docs/security.md "Admission"). */
  readonly admission: Admission;
  /** Retention deleted objects (the receivers' new-object index reads them again). */
  readonly onObjectsDeleted?: () => void;
  /** The box's system updates for the mirror's `installations` (docs/updates.md "Watching a rollout"). */
  readonly fleetReport?: () => FleetReport | null;
}

export function buildHousekeepingServices(deps: HousekeepingDeps): Service[] {
  const { store, health, clock, logger, statusSlot } = deps;
  const current = deps.settings.current();
  const services: Service[] = [];
  statusSlot.sink = null;

  const status = current.device_status_output;
  if (status.enabled) {
    const output = new StatusOutput(
      {
        port: status.port,
        // The contract has no bind address for this output: it listens where the API listens.
        host: current.api.bind_address,
        encryptionKey: status.encryption_enabled ? status.encryption_key : null,
        instanceName: current.general.instance_name,
        objects: snapshotSource(store.objects),
        attach: (sink) => {
          statusSlot.sink = sink;
          const off = deps.bus ? feedFromIngest(deps.bus, sink, store.objects) : () => undefined;
          return () => {
            off();
            if (statusSlot.sink === sink) statusSlot.sink = null;
          };
        },
      },
      { health, logger: logger.child('status-output'), clock, admission: deps.admission },
    );
    services.push(output);
  }

  const database = current.database;
  services.push(
    new RetentionJob({
      store,
      // While this run mirrors to MySQL, events the mirror has not received yet are kept (docs/retention.md).
      policy: () => retentionPolicy(deps.settings.current(), [database.enabled ? syncedEventFloor(store.meta) : null]),
      health,
      logger: logger.child('retention'),
      clock,
      ...(deps.onObjectsDeleted ? { onObjectsDeleted: deps.onObjectsDeleted } : {}),
    }),
  );
  if (database.enabled) {
    services.push(
      new MysqlSync({
        store,
        target: database,
        installationName: current.general.instance_name,
        version: readVersion(),
        ...(deps.fleetReport ? { fleetReport: deps.fleetReport } : {}),
        health,
        logger: logger.child('mysql-sync'),
        clock,
      }),
    );
  }
  return services;
}
