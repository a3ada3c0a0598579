/**
 * The modem receivers of the settings, each on a serial line from the port layer (docs/modem.md).
 * A modem is 8N1 without flow control on every model Vigil knows; only the speed is configurable.
 */
import type { HealthRegistry } from '../../core/health.js';
import type { Logger } from '../../core/logger.js';
import type { SerialLineFactory } from '../../core/serial.js';
import type { Service } from '../../core/service.js';
import type { EventIngest } from '../../ingest/event-ingest.js';
import type { RaiseInternalEvent } from '../../internal-events/recorder.js';
import type { ModemReceiverSettings } from '../../settings/schema-receivers.js';
import type { CallerObject } from './known-callers.js';
import { ModemReceiver } from './modem-receiver.js';
import type { PinLedger } from './pin-ledger.js';

export interface ModemBuildDeps {
  readonly serialLines: SerialLineFactory;
  readonly ingest: Pick<EventIngest, 'submit'>;
  readonly health: HealthRegistry;
  readonly logger: Logger;
  readonly pins: PinLedger;
  readonly objects: () => Iterable<CallerObject>;
  readonly raise?: RaiseInternalEvent;
}

export function buildModemReceivers(list: readonly ModemReceiverSettings[], deps: ModemBuildDeps): Service[] {
  return list.map((settings) => {
    const owner = `rx:modem:${settings.id}`;
    const line = deps.serialLines({
      path: settings.port_id, baudRate: settings.baud_rate, dataBits: 8, parity: 'none', stopBits: 1, flowControl: 'none', owner,
    });
    return new ModemReceiver(settings, {
      line, ingest: deps.ingest, health: deps.health, logger: deps.logger.child(owner), pins: deps.pins, objects: deps.objects,
      ...(deps.raise ? { raise: deps.raise } : {}),
    });
  });
}
