/**
 * One client of the device status output (docs/status-output.md §Connection), from accept to close:
 *   1. proving (encrypted output only): the client got a `challenge` frame with a fresh nonce and
 *      must answer one encrypted `auth` line carrying it within `proofMs`; nothing else is sent,
 *      so a stranger without the key costs one small frame, never a snapshot;
 *   2. snapshot: the `hello` and one `state` frame per object, read from the store in pages and
 *      encoded in slices, yielding to the event loop between them and waiting while the client
 *      has more than `maxQueueBytes` unread, so neither a large installation nor a slow reader
 *      holds up the receivers; live frames published meanwhile wait in a bounded queue;
 *   3. live: each published frame is written at once; a client more than `maxQueueBytes` behind
 *      is dropped (it reconnects, and its new snapshot makes its view whole again).
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { StatusDecoder, changeFrame, type StatusEncoder, type StatusObject } from './frame.js';
import type { Slicer } from './slicer.js';

/** Objects of the store, read in pages for the snapshot (src/store ObjectsRepo fits through feed.ts). */
export interface SnapshotSource {
  /** Objects now (the `hello` frame's count). */
  count(): number;
  /** Up to `limit` objects with an id above `afterId`, by id. */
  page(afterId: number, limit: number): readonly StatusObject[];
}

export interface ClientDeps {
  readonly encoder: StatusEncoder;
  /** The key to read the client's `auth` line with; null: plain output (the box itself), no proof. */
  readonly proofKey: string | null;
  readonly proofMs: number;
  readonly instanceName: string;
  readonly objects: SnapshotSource;
  readonly now: () => number;
  readonly maxQueueBytes: number;
  readonly pageSize: number;
  /** Runs one slice of one snapshot per turn of the event loop, every client's in turn. */
  readonly slicer: Slicer;
  /** The client proved the key (or needs not): the output counts it as a client now. */
  readonly proven: (client: StatusClient) => void;
  /** The client failed its proof in time: closed, counted. */
  readonly unproven: (client: StatusClient) => void;
  /** The client fell too far behind: closed, counted. */
  readonly tooSlow: (client: StatusClient) => void;
  readonly failed: (client: StatusClient, err: unknown) => void;
}

/** Bytes a client may send before its `auth` line ends (a line of a few hundred hex digits). */
const MAX_PROOF_BYTES = 1024;
/** A client that reads nothing of its snapshot for this long is dropped as too slow. */
export const SNAPSHOT_STALL_MS = 30_000;

export class StatusClient {
  readonly socket: Socket;
  readonly address: string;
  private readonly deps: ClientDeps;
  private state: 'proving' | 'snapshot' | 'live' | 'closed' = 'proving';
  /** Live frames published while the snapshot is sent. */
  private held: Buffer[] = [];
  private heldBytes = 0;
  private nonce = '';
  private proofTimer: NodeJS.Timeout | null = null;
  /** The snapshot: its time, and the last object id sent (-1: the hello is not sent yet). */
  private snapshotAt = 0;
  private after = -1;
  private readonly step = (): 'more' | 'done' | 'wait' => this.snapshotStep();

  constructor(socket: Socket, address: string, deps: ClientDeps) {
    this.socket = socket;
    this.address = address;
    this.deps = deps;
  }

  /** Starts the conversation: the challenge (encrypted output), or the snapshot at once. */
  begin(): void {
    if (this.deps.proofKey === null) {
      // The stream is one-way from here: whatever a client sends is read and discarded.
      this.socket.resume();
      this.deps.proven(this);
      this.startSnapshot();
      return;
    }
    this.nonce = randomBytes(16).toString('hex').toUpperCase();
    const decoder = new StatusDecoder(this.deps.proofKey);
    let received = 0;
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      const frames = decoder.push(chunk);
      if (frames.length === 0 && received <= MAX_PROOF_BYTES) return;
      this.socket.off('data', onData);
      const auth = frames[0];
      if (auth && auth.type === 'auth' && auth.nonce === this.nonce) this.provenNow();
      else this.refuse();
    };
    this.socket.on('data', onData);
    this.proofTimer = setTimeout(() => this.refuse(), this.deps.proofMs);
    this.proofTimer.unref();
    this.socket.write(this.deps.encoder.encode({ type: 'challenge', at: this.deps.now(), nonce: this.nonce }));
  }

  /** A live frame for this client: written now, held during the snapshot, dropped before the proof. */
  send(bytes: Buffer): void {
    if (this.state === 'live') {
      if (this.socket.writableLength + bytes.length > this.deps.maxQueueBytes) {
        this.deps.tooSlow(this);
        return;
      }
      this.socket.write(bytes);
    } else if (this.state === 'snapshot') {
      if (this.heldBytes + bytes.length > this.deps.maxQueueBytes) {
        this.deps.tooSlow(this);
        return;
      }
      this.held.push(bytes);
      this.heldBytes += bytes.length;
    }
  }

  get closed(): boolean {
    return this.state === 'closed';
  }

  close(): void {
    this.state = 'closed';
    if (this.proofTimer) clearTimeout(this.proofTimer);
    this.proofTimer = null;
    this.held = [];
    this.socket.destroy();
  }

  private provenNow(): void {
    if (this.proofTimer) clearTimeout(this.proofTimer);
    this.proofTimer = null;
    this.socket.on('data', () => undefined);
    this.deps.proven(this);
    this.startSnapshot();
  }

  private refuse(): void {
    if (this.state !== 'proving') return;
    this.deps.unproven(this);
  }

  private startSnapshot(): void {
    this.state = 'snapshot';
    this.snapshotAt = this.deps.now();
    this.deps.slicer.add(this.step);
  }

  /** One slice: the hello, or the next page of objects; at the end, the frames held meanwhile. */
  private snapshotStep(): 'more' | 'done' | 'wait' {
    if (this.state !== 'snapshot') return 'done';
    const { encoder, objects, pageSize } = this.deps;
    // A client that has not read what it got yet waits for room, never the others.
    if (this.socket.writableLength > this.deps.maxQueueBytes) {
      this.waitForRoom();
      return 'wait';
    }
    let page: readonly StatusObject[];
    try {
      if (this.after < 0) {
        const count = objects.count();
        this.socket.write(
          encoder.encode({ type: 'hello', at: this.snapshotAt, instance: this.deps.instanceName, objects: count }),
        );
        this.after = 0;
        return 'more';
      }
      const at = this.snapshotAt;
      page = objects.page(this.after, pageSize);
      if (page.length > 0) {
        this.socket.write(
          Buffer.concat(page.map((object) => encoder.encode(changeFrame({ kind: 'state', at, object })))),
        );
        this.after = page[page.length - 1]!.id;
      }
    } catch (err) {
      this.deps.failed(this, err);
      return 'done';
    }
    if (page.length === pageSize) return 'more';
    this.state = 'live';
    const held = this.held;
    this.held = [];
    this.heldBytes = 0;
    for (const bytes of held) this.send(bytes);
    return 'done';
  }

  /** Back in the slicer once the client has read its queue down (dropped when it reads nothing for a while). */
  private waitForRoom(): void {
    const done = (drained: boolean): void => {
      clearTimeout(timer);
      this.socket.off('drain', onDrain);
      if (this.state !== 'snapshot') return;
      if (drained) this.deps.slicer.add(this.step);
      else this.deps.tooSlow(this);
    };
    const onDrain = (): void => done(true);
    const timer = setTimeout(() => done(false), SNAPSHOT_STALL_MS);
    timer.unref();
    this.socket.once('drain', onDrain);
  }
}
