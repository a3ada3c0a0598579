/**
 * The receiver seam: what a transport hands to the one DC-09 session (frame-session.ts). A new
 * transport implements one of these two shapes and never interprets a byte itself
 * (docs/receivers.md §The seam):
 *   - a stream (TCP connection, serial line): bytes in any chunking, cut into frames by the
 *     session's framer; replies go back on the same stream in frame order;
 *   - datagrams (UDP, SMS): one whole frame each, from a peer of its own, answered on its own.
 */

/** `transport` of the journal rows a channel produces. */
export type Transport = 'tcp' | 'udp' | 'serial' | 'sms';

/** One byte stream to one peer; a net.Socket or an open serial port behind a small adapter. */
export interface StreamChannel {
  readonly framing: 'stream';
  readonly transport: Transport;
  /** Journaled as the events' `remote_address` ("ip:port", a port path). */
  readonly remoteAddress: string;
  /** The connection gets `object_sessions` rows (TCP only, docs/receivers.md §Session rows). */
  readonly sessionRows: boolean;
  /** false: the transport's buffer is above its high-water mark; the session waits for `drained()`. */
  write(data: Buffer): boolean;
  pause(): unknown;
  resume(): unknown;
  /** Told once, when the first frame of the stream is committed and ACKed, or a HELLO welcomed: the peer spoke valid DC-09 (#28.6). */
  trusted?(): void;
}

/** How one datagram ended, told to the channel exactly once (SMS: delete from the SIM only when 'committed'). */
export type DatagramOutcome = 'committed' | 'failed' | 'answered' | 'rejected' | 'ignored' | 'dropped';

/** Independent frames from many peers; `Peer` is whatever the transport needs to answer one (an address, an SMS index). */
export interface DatagramChannel<Peer> {
  readonly framing: 'datagram';
  readonly transport: Transport;
  /** A reply for the datagram of `peer`: NAK / DUH at once, ACK after its commit. */
  reply(data: Buffer, peer: Peer): void;
  settled?(peer: Peer, outcome: DatagramOutcome): void;
}

export type FrameChannel<Peer = void> = StreamChannel | DatagramChannel<Peer>;
