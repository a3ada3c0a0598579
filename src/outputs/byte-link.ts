/**
 * The transport seam of an output: an output speaks bytes to a ByteLink and never sees a socket. TCP, UDP and serial
 * COM links (serial-link.ts) implement it, so the MLR2 and DC-09 outputs run over a COM port unchanged. A link does
 * not interpret bytes.
 */

/**
 * 'stream': bytes may arrive split or joined (TCP, serial): the protocol must frame them.
 * 'datagram': every write is one datagram and every onData chunk is one whole datagram (UDP).
 */
export type LinkFraming = 'stream' | 'datagram';

export interface ByteLink {
  /** For logs and health details, e.g. "tcp 192.0.2.10:1025". */
  readonly description: string;
  readonly framing: LinkFraming;
  readonly connected: boolean;
  /**
   * Opens the link; resolves once bytes can be written, rejects (VigilError SERVICE_FAILED) when it cannot.
   * Calling it on an open link is a no-op. A closed link may be connected again.
   */
  connect(): Promise<void>;
  /** Queues bytes for sending; throws when the link is not connected. */
  write(bytes: Buffer): void;
  /** The one listener for incoming bytes (a later call replaces the earlier listener). */
  onData(listener: (chunk: Buffer) => void): void;
  /** The one listener for the link going down by itself (peer closed, reset, I/O error); not called by close(). */
  onClose(listener: (reason: string) => void): void;
  /** Closes the link; idempotent. */
  close(): Promise<void>;
}

/** Creates the link of an output from its settings; tests pass their own. */

/**
 * A link the peer opens (the TCP server output, type 5): the automation client connects to Vigil. connect() adopts
 * the client that is waiting and rejects at once when none is; the output waits for a client instead of dialling.
 */
export interface PassiveLink extends ByteLink {
  readonly passive: true;
  /** Starts accepting clients; rejects when the address cannot be bound. close() stops accepting. */
  listen(): Promise<void>;
  /** A client has connected and waits to be adopted by connect(). */
  readonly clientWaiting: boolean;
  /** The one listener for "a client is waiting". */
  onClientWaiting(listener: () => void): void;
  /** For health: the bound "host:port" (null while not listening), the adopted client, clients refused so far. */
  readonly listeningOn: string | null;
  readonly client: string | null;
  readonly refusedClients: number;
}

export function isPassiveLink(link: ByteLink): link is PassiveLink {
  return (link as Partial<PassiveLink>).passive === true;
}
