/**
 * The durable minimum (issue 9): the least a receiver can do and still keep the issue's rules, so
 * the bench can tell Vigil's own cost from the cost of the rules themselves. It is the
 * store-nothing reference (Vigil's codec, the reply written by the thread that read the frame)
 * plus exactly what the rules add: ONE writer thread owns the database ("One writer"), and a frame
 * is ACKed only after the transaction holding its events has committed with synchronous=FULL
 * ("Durability stays exactly as it is"). Everything else Vigil does is left out: objects and
 * sessions, supervision, sightings, metrics, the bus, outputs, replay detection, the gathering
 * gate, NAK/DUH bookkeeping.
 *
 * Frames read while a commit is in flight wait; the waiting ones leave together in ONE message (the
 * rows as one flat array of values, Vigil's wire-pack idea without the ops) to the writer, which
 * stores them as the journal does (the store's openDatabase, migration 6's `events` table, ids
 * counted by the one writer, 16 rows per INSERT) in one BEGIN IMMEDIATE … COMMIT and answers with
 * the count; then their replies are written. When they leave is the policy (Policy below): by
 * default once the whole fleet is waiting, which a receiver can only estimate (its gate,
 * src/ingest/batch-gate.ts, does) and this one counts, so it is an upper bound of the rules.
 * Rows are Vigil's own (journalRow + toInsertParams), so the row's cost is the same.
 * Run as a child process pinned like the gateway (startStoreMinimalChild), all threads on one core.
 *
 *   node dist/bench/lib/store-minimal.js <tcpPort> <udpPort> <key> <dir> thread|inline pipeline|gather
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { TIMER_SLACK_MS } from '../../src/ingest/batch-gate.js';
import { journalRow } from '../../src/ingest/journal-row.js';
import type { FrameItem } from '../../src/ingest/types.js';
import { Dc09Framer, decodeDatagram } from '../../src/protocols/dc09/frame.js';
import { handleFrame, type FrameDecision, type HandlerContext } from '../../src/protocols/dc09/handler.js';
import { receiverPasswordKey } from '../../src/protocols/dc09/crypto.js';
import { openDatabase } from '../../src/store/database.js';
import { EVENT_INSERT_PARAMS, insertEventsSql } from '../../src/store/event-rows.js';
import { toInsertParams } from '../../src/store/journal-columns.js';
import { EVENTS_TABLE_SQL } from '../../src/store/schema-v6.js';
import type { GatewayChild } from './gateway-child.js';

import { startReferenceChild } from './reference-child.js';

const ROWS_PER_INSERT = 16;

/** A reply waiting for its commit: the socket (TCP) or the peer (UDP) and the bytes. */
interface Waiting {
  readonly reply: Buffer;
  readonly socket: Socket | null;
  readonly port: number;
  readonly address: string;
}

/** The journal's way to store a batch of flat row values in one transaction; returns the row count. */
function journalStore(path: string): (values: unknown[]) => number {
  const db = openDatabase(path);
  db.exec(EVENTS_TABLE_SQL);
  const full = db.prepare(insertEventsSql(ROWS_PER_INSERT));
  const single = db.prepare(insertEventsSql(1));
  let nextId = ((db.prepare('SELECT max(id) AS id FROM events').get() as { id: number | null }).id ?? 0) + 1;
  const store = db.transaction((values: unknown[]) => {
    const rows = values.length / EVENT_INSERT_PARAMS;
    let row = 0;
    for (; row + ROWS_PER_INSERT <= rows; row += ROWS_PER_INSERT) {
      full.run(
        { firstId: nextId },
        values.slice(row * EVENT_INSERT_PARAMS, (row + ROWS_PER_INSERT) * EVENT_INSERT_PARAMS),
      );
      nextId += ROWS_PER_INSERT;
    }
    for (; row < rows; row++) {
      single.run({ firstId: nextId++ }, values.slice(row * EVENT_INSERT_PARAMS, (row + 1) * EVENT_INSERT_PARAMS));
    }
    return rows;
  });
  return (values) => store.immediate(values);
}

/** The writer thread: one transaction per message, answers with the row count. */
function writer(path: string): void {
  const store = journalStore(path);
  parentPort!.on('message', (values: unknown[]) => parentPort!.postMessage(store(values)));
}

/**
 * `thread`: the rules as the issue states them, commits in the one writer thread. `inline`: the
 * commit in the thread that owns the sockets, synchronously, once per event-loop turn (no thread
 * hop, but nothing is read while the fsync runs): what this machine allows at all, not a design the
 * issue permits (its writer thread is not the receivers' thread).
 */
type Mode = 'thread' | 'inline';
/**
 * `pipeline`: what is waiting leaves as soon as the writer is free (Vigil without its gate).
 * `gather`: it leaves once every sender of the fleet is waiting (open TCP connections, UDP peers
 * heard in the last second), or GATHER_MAX_MS after the first: one commit per fleet round.
 */
type Policy = 'pipeline' | 'gather';

const GATHER_MAX_MS = 1;
const PEER_WINDOW_MS = 1000;

/** The senders a saturating fleet has: TCP connections open, UDP peers heard lately. */
class Fleet {
  connections = 0;
  private readonly peers = new Map<string, number>();
  private counted = 0;
  private countedAt = 0;

  heard(peer: string, now: number): void {
    this.peers.set(peer, now);
  }

  size(now: number): number {
    if (now - this.countedAt > 100) {
      this.countedAt = now;
      this.counted = 0;
      for (const [peer, at] of this.peers) {
        if (now - at > PEER_WINDOW_MS) this.peers.delete(peer);
        else this.counted++;
      }
    }
    return this.connections + this.counted;
  }
}

function serve(tcpPort: number, udpPort: number, password: string, dir: string, mode: Mode, policy: Policy): void {
  const key = receiverPasswordKey(password);
  const context = (): HandlerContext => ({
    now: Date.now(),
    key,
    requireEncryption: false,
    checkPlainTimestamps: false,
    acceptLocalTime: false,
  });
  const path = join(dir, 'minimal.db');
  const fleet = new Fleet();
  let values: unknown[] = [];
  let waiting: Waiting[] = [];
  let busy = false;
  let gatherTimer: NodeJS.Timeout | null = null;
  let gatherStarted = 0;
  // libuv's millisecond clock fires a 1 ms timer early on a busy loop: the limit is kept against
  // performance.now(), as Vigil's gate does (src/ingest/batch-gate.ts).
  const gatherTimedOut = (): void => {
    const left = GATHER_MAX_MS - (performance.now() - gatherStarted);
    gatherTimer = left > TIMER_SLACK_MS ? setTimeout(gatherTimedOut, left) : null;
    if (!gatherTimer) send(true);
  };
  let udp: UdpSocket | null = null;

  const reply = (target: Omit<Waiting, 'reply'>, bytes: Buffer): void => {
    if (target.socket) target.socket.write(bytes);
    else udp!.send(bytes, target.port, target.address);
  };
  const answer = (replies: readonly Waiting[]): void => {
    for (const w of replies) reply(w, w.reply);
  };
  /** Stores `batch` and answers `replies` after its commit, then calls done(). */
  let dispatch: (batch: unknown[], replies: Waiting[]) => void;
  let stop: () => Promise<unknown>;
  const send = (force = false): void => {
    if (busy || waiting.length === 0) return;
    if (policy === 'gather' && !force && waiting.length < fleet.size(Date.now())) {
      if (!gatherTimer) {
        gatherStarted = performance.now();
        gatherTimer = setTimeout(gatherTimedOut, GATHER_MAX_MS);
      }
      return;
    }
    if (gatherTimer) clearTimeout(gatherTimer);
    gatherTimer = null;
    const replies = waiting;
    const batch = values;
    waiting = [];
    values = [];
    busy = true;
    dispatch(batch, replies);
  };
  const done = (replies: readonly Waiting[]): void => {
    busy = false;
    answer(replies);
    send();
  };
  /** After a read: inline, the commit waits for the end of this event-loop turn (every socket read in it). */
  let kick: () => void;
  if (mode === 'inline') {
    const store = journalStore(path);
    let scheduled = false;
    dispatch = (batch, replies) => {
      store(batch);
      done(replies);
    };
    kick = () => {
      if (scheduled) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        send();
      });
    };
    stop = () => Promise.resolve();
  } else {
    const thread = new Worker(fileURLToPath(import.meta.url), { workerData: path });
    let inFlight: Waiting[] = [];
    dispatch = (batch, replies) => {
      inFlight = replies;
      thread.postMessage(batch);
    };
    thread.on('message', () => done(inFlight));
    thread.on('error', (err) => {
      process.stderr.write(`store-minimal writer failed: ${err.message}\n`);
      process.exit(1);
    });
    kick = () => send();
    stop = () => thread.terminate();
  }

  /** A frame's decision: events become rows and the reply waits for their commit; the rest is answered at once. */
  const take = (
    decision: FrameDecision,
    raw: Buffer,
    kind: 'tcp' | 'udp',
    remoteAddress: string,
    target: Omit<Waiting, 'reply'>,
  ): void => {
    const bytes = decision.reply;
    if (!bytes) return;
    if (decision.action !== 'ack' || decision.events.length === 0) {
      reply(target, bytes);
      return;
    }
    const item = {
      kind: 'frame',
      receiver: { id: kind === 'tcp' ? 1 : 2, kind },
      transport: kind,
      remoteAddress,
      receivedAt: Date.now(),
      raw,
    } as FrameItem;
    for (const e of decision.events) values.push(...toInsertParams(journalRow(e, item)));
    waiting.push({ reply: bytes, ...target });
  };

  const tcp = createServer((socket) => {
    const framer = new Dc09Framer();
    const remote = `${socket.remoteAddress}:${socket.remotePort}`;
    const target = { socket, port: 0, address: '' };
    fleet.connections++;
    socket.setNoDelay(true);
    socket.on('error', () => undefined);
    socket.on('close', () => fleet.connections--);
    socket.on('data', (chunk: Buffer) => {
      const ctx = context();
      for (const item of framer.push(chunk)) {
        if (item.kind === 'frame') take(handleFrame(item.body, ctx), item.body, 'tcp', remote, target);
      }
      kick();
    });
  });
  udp = createSocket('udp4');
  udp.on('message', (datagram, peer) => {
    const item = decodeDatagram(datagram);
    if (item.kind !== 'frame') return;
    const remote = `${peer.address}:${peer.port}`;
    fleet.heard(remote, Date.now());
    take(handleFrame(item.body, context()), item.body, 'udp', remote, {
      socket: null,
      port: peer.port,
      address: peer.address,
    });
    kick();
  });
  let pending = 2;
  const ready = (): void => {
    if (--pending === 0) process.stdout.write('ready\n');
  };
  tcp.listen(tcpPort, '127.0.0.1', ready);
  udp.bind(udpPort, '127.0.0.1', ready);
  process.on('SIGTERM', () => {
    void stop().then(() => process.exit(0));
  });
}

/**
 * The durable minimum in its own process (reference-child.ts), all its threads pinned to `cpu` when
 * given, `env` added to its environment (slowsync.ts flushEnv).
 */
export function startStoreMinimalChild(
  tcpPort: number,
  udpPort: number,
  password: string,
  cpu: number | null,
  mode: Mode = 'thread',
  policy: Policy = 'gather',
  env: Readonly<Record<string, string>> = {},
): Promise<GatewayChild> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-minimal-'));
  const args = [String(tcpPort), String(udpPort), password, dir, mode, policy];
  return startReferenceChild(
    'durable-minimum',
    fileURLToPath(import.meta.url),
    args,
    cpu,
    () => rmSync(dir, { recursive: true, force: true }),
    env,
  );
}

if (!isMainThread) {
  writer(workerData as string);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [tcpPort, udpPort, password, dir, mode, policy] = process.argv.slice(2);
  if (
    !tcpPort ||
    !udpPort ||
    !password ||
    !dir ||
    (mode !== 'thread' && mode !== 'inline') ||
    (policy !== 'pipeline' && policy !== 'gather')
  ) {
    throw new Error('usage: store-minimal.js <tcpPort> <udpPort> <key> <dir> thread|inline pipeline|gather');
  }
  serve(Number(tcpPort), Number(udpPort), password, dir, mode, policy);
}
