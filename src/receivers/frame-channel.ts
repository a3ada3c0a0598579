/**
 * The receiver seam: what a transport hands to the one DC-09 session (frame-session.ts). A new
 * transport implements one of these two shapes and never interprets a byte itself
 * (docs/receivers.md §The seam):
 *   - a stream (TCP connection, serial line): bytes in any chunking, cut into frames by the
 *     session's framer; replies go back on the same stream in frame order;
 *   - datagrams (UDP): one whole frame each, from a peer of its own, answered on its own.
 * SMS is not a channel: the modem receiver journals each message itself (modem/sms-inbox.ts).
 */

/** `transport` of the journal rows a channel produces. */
export type Transport = 'tcp' | 'udp' | 'serial' | 'sms';

/** One byte stream to one peer; a net.Socket or an open serial port behind a small adapter. */
export interface StreamChannel {
  readonly framing: 'stream';
  readonly transport: Transport;
  /** Journaled as the events' `remote_address` ("ip:port", a port path). */
  readonly remoteAddress: string;
  /** The peer's source (src/core/source-key.ts) the admission counts it under; absent on serial lines. */
  readonly source?: string;
  /** The connection gets `object_sessions` rows (TCP only, docs/receivers.md §Session rows). */
  readonly sessionRows: boolean;
  /** false: the transport's buffer is above its high-water mark; the session waits for `drained()`. */
  write(data: Buffer): boolean;
  pause(): unknown;
  resume(): unknown;
  /** Told once, when the first frame of the stream is committed and ACKed, or a HELLO welcomed: the peer spoke valid DC-09. */
  trusted?(): void;
  /** Told when a frame of a settled account (new-object-gate.ts) was ACKed: the peer is a known device. */
  settled?(): void;
}

/** Independent frames from many peers; `Peer` is whatever the transport needs to answer one (UDP: the sender's address). */
export interface DatagramChannel<Peer> {
  readonly framing: 'datagram';
  readonly transport: Transport;
  /** A reply for the datagram of `peer`: NAK / DUH at once, ACK after its commit. */
  reply(data: Buffer, peer: Peer): void;
  /**
   * Told after the datagram of `peer` was committed and its ACK handed to `reply`: the peer spoke valid DC-09;
   * `settled`: its account is settled (new-object-gate.ts), the peer is a known device.
   */
  acked?(peer: Peer, settled: boolean): void;
}

export type FrameChannel<Peer = void> = StreamChannel | DatagramChannel<Peer>;
