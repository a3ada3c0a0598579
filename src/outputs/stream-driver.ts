/**
 * The driver of an output whose protocol is a one-byte-ACK receiver feed (MLR2, MLR2-DG, Ademco 685), whatever its
 * link (TCP client, COM, TCP server): one place maps the settings onto the driver and its route.
 */
import type { Logger } from '../core/logger.js';
import type { OutputSettings } from '../settings/schema-outputs.js';
import { Ademco685Driver } from './ademco685-driver.js';
import { Mlr2Driver } from './mlr2-driver.js';
import type { ProtocolDriver } from './protocol-driver.js';

export type StreamProtocol = 'MLR2' | 'MLR2-DG' | 'ADEMCO-685';

export function isStreamProtocol(protocol: string): protocol is StreamProtocol {
  return protocol === 'MLR2' || protocol === 'MLR2-DG' || protocol === 'ADEMCO-685';
}

export function createStreamDriver(
  settings: OutputSettings & { protocol: StreamProtocol },
  ackTimeoutMs: number,
  logger?: Logger,
): ProtocolDriver<'ack' | 'nak'> {
  if (settings.protocol === 'ADEMCO-685') {
    return new Ademco685Driver({
      route: { receiver: settings.receiver_number, group: settings.line_number },
      ackTimeoutMs,
      ...(logger ? { logger } : {}),
    });
  }
  const lineDigits = settings.mlr2?.line_digits ?? 1;
  return new Mlr2Driver({
    variant: settings.protocol,
    route: {
      receiver: settings.receiver_number,
      line: settings.line_number,
      lineDigits,
      longAccounts: settings.mlr2?.long_accounts === 'contact_id_10',
    },
    ackTimeoutMs,
  });
}

/** The protocol as the Status view names it: the variant options an operator chose are part of it. */
export function protocolLabel(settings: OutputSettings): string {
  if (settings.protocol !== 'MLR2' && settings.protocol !== 'MLR2-DG') return settings.protocol;
  const options = settings.mlr2;
  if (!options || options.line_digits === 1) return settings.protocol;
  return `${settings.protocol} (3-digit line${options.long_accounts === 'contact_id_10' ? ', 10-digit accounts' : ''})`;
}
