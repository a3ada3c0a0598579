/**
 * The modem receivers of the settings, each on a serial line from the port layer (docs/modem.md).
 * A modem is 8N1 without flow control on every model Vigil knows; only the speed is configurable.
 */
import type { SerialLineFactory } from '../../core/serial.js';
import type { Service } from '../../core/service.js';
import type { ModemReceiverSettings } from '../../settings/schema-receivers.js';
import { ModemReceiver, type ModemReceiverDeps } from './modem-receiver.js';

/** What every modem receiver gets, plus the port layer that opens its line. */
export type ModemBuildDeps = Omit<ModemReceiverDeps, 'line'> & { readonly serialLines: SerialLineFactory };

export function buildModemReceivers(list: readonly ModemReceiverSettings[], deps: ModemBuildDeps): Service[] {
  return list.map((settings) => {
    const owner = `rx:modem:${settings.id}`;
    const line = deps.serialLines({
      path: settings.port_id, baudRate: settings.baud_rate, dataBits: 8, parity: 'none', stopBits: 1, flowControl: 'none', owner, receiverId: settings.id,
    });
    const { serialLines: _, ...shared } = deps;
    return new ModemReceiver(settings, { ...shared, line, logger: deps.logger.child(owner) });
  });
}
