/** The serial port layer (docs/serial.md): lines kept open with reopen backoff, and discovery without udev. */
import type { SerialLineFactory } from '../../src/core/serial.js';
import { PortLine, type PortLineDeps } from './port-line.js';

export { PortLine, BACKOFF_MIN_MS, BACKOFF_MAX_MS, type PortLineDeps } from './port-line.js';
export { listSerialPorts, type DiscoveryRoots } from './discovery.js';

/** What src/main.ts hands to receivers and outputs. */
export function serialLineFactory(deps: PortLineDeps): SerialLineFactory {
  return (options) => new PortLine(options, deps);
}
