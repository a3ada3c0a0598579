/**
 * The modem receivers of the settings, each on a serial line from the port layer (docs/modem.md).
 * A modem is 8N1 without flow control on every model Vigil knows; only the speed is configurable.
 */
import type { SerialLineFactory } from '../../core/serial.js';
import type { Service } from '../../core/service.js';
import type { ModemReceiverSettings } from '../../settings/schema-receivers.js';
import { metaCallerStore, type MetaPort } from './learned-caller-store.js';
import { ModemReceiver, type ModemReceiverDeps } from './modem-receiver.js';

/** What every modem receiver gets, plus the port layer that opens its line and the store's meta table. */
export type ModemBuildDeps = Omit<ModemReceiverDeps, 'line' | 'learnedCallers'> & {
  readonly serialLines: SerialLineFactory;
  /** Read at each use: the store's repositories exist only while it is open. */
  readonly meta: () => MetaPort;
};

export function buildModemReceivers(list: readonly ModemReceiverSettings[], deps: ModemBuildDeps): Service[] {
  return list.map((settings) => {
    const owner = `rx:modem:${settings.id}`;
    const line = deps.serialLines({
      path: settings.port_id,
      baudRate: settings.baud_rate,
      dataBits: 8,
      parity: 'none',
      stopBits: 1,
      flowControl: 'none',
      owner,
      receiverId: settings.id,
    });
    const { serialLines: _, meta, ...shared } = deps;
    return new ModemReceiver(settings, {
      ...shared,
      line,
      learnedCallers: metaCallerStore(meta, settings.id),
      logger: deps.logger.child(owner),
    });
  });
}
