/** What every IP receiver is given, and the small socket helpers the TCP and UDP receivers share. */
import type { Server, Socket } from 'node:net';
import type { Clock } from '../core/clock.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { LinkRegistry } from '../devices/link-registry.js';
import type { EventIngest } from '../ingest/event-ingest.js';
import type { Admission } from '../core/admission/admission.js';
import type { NewObjectGate } from './new-object-gate.js';
import type { ReceiverOptions } from './receiver-options.js';

export interface ReceiverDeps {
  readonly ingest: Pick<EventIngest, 'submit' | 'submitTo' | 'closeSession' | 'drain'>;
  readonly links: LinkRegistry;
  readonly health: HealthRegistry;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly options: ReceiverOptions;
  /**
   * The one admission component (src/core/admission/): each receiver's door, the shared descriptor
   * budget, the known sources, the HELLO, new-object and enrolment allowances.
   */
  readonly admission: Admission;
  /** Frames from accounts never seen take their object from the admission budget (new-object-gate.ts). */
  readonly newObjects: NewObjectGate;
}

/** "1.2.3.4:5" or "[::1]:5". */
export function formatAddress(host: string, port: number): string {
  // Hosts here come from sockets (numeric IPv4 or IPv6), and only IPv6 has a ':'. Called for every
  // datagram: node:net's isIPv6 is a long regular expression (measurable in bench/ingest.ts UDP).
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Listens and resolves with the bound "host:port"; rejects on EADDRINUSE and the like. */
/**
 * Pending-connection queue of a TCP receiver. After a gateway restart every device reconnects
 * within a second or two; Node's default of 511 made the kernel drop handshakes of a
 * 1,000-device fleet (docs/simulator.md). The kernel caps it at net.core.somaxconn.
 */
export const TCP_LISTEN_BACKLOG = 4096;

export function listenTcp(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once('error', onError);
    server.listen({ port, host, exclusive: true, backlog: TCP_LISTEN_BACKLOG }, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(
        typeof address === 'object' && address
          ? formatAddress(address.address, address.port)
          : formatAddress(host, port),
      );
    });
  });
}

/** Waits until every socket closed, at most `graceMs`; the rest are destroyed. */
export async function closeGracefully(sockets: readonly Socket[], graceMs: number): Promise<void> {
  const open = sockets.filter((s) => !s.destroyed);
  if (open.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const all = Promise.all(
    open.map((s) => new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())))),
  );
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
  await Promise.race([all, deadline]);
  clearTimeout(timer);
  for (const socket of open) if (!socket.destroyed) socket.destroy();
}
