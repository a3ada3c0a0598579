/**
 * The closed loops of bench/commit-cycle.ts: `submit(device, done)` hands one device's next frame
 * to a receiver and calls done() once its events are committed (and, with sessions, its ACK is
 * written). Four of them, no sockets anywhere:
 *   - `vigil`: a decoded frame straight into EventIngest and its journal writer thread;
 *   - `minimum`: the durable minimum's rows straight into its writer thread (store-minimal.ts);
 *   - `vigil-rx`: real DC-09 frame bytes into one FrameSession per device (framer, codec, receiver
 *     rules with the replay check, reply queue), then the same ingest;
 *   - `minimum-rx`: the same bytes through the minimum's receiver path (Dc09Framer, handleFrame,
 *     the reply held until the commit).
 * The `-rx` pair tells the receiver layer's cost from the ingest's.
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { systemClock } from '../../src/core/clock.js';
import { HealthRegistry } from '../../src/core/health.js';
import { createLogger, silentLogger } from '../../src/core/logger.js';
import { LinkRegistry } from '../../src/devices/link-registry.js';
import { EventIngest } from '../../src/ingest/event-ingest.js';
import { borrowedWriter } from '../../src/writer/wire.js';
import { journalRow } from '../../src/ingest/journal-row.js';
import type { FrameItem } from '../../src/ingest/types.js';
import { storeWithWriter } from '../../src/writer/store-with-writer.js';
import { Dc09Framer } from '../../src/protocols/dc09/frame.js';
import { handleFrame, type DecodedEvent } from '../../src/protocols/dc09/handler.js';
import { FrameSession } from '../../src/receivers/frame-session.js';
import { Dc09Rules } from '../../src/receivers/dc09-rules.js';
import { ReceiverCounters } from '../../src/receivers/receiver-counters.js';
import { eventFrame, nextSequence, sequenceText, type FrameHeader } from '../../src/sim/event-data.js';
import { toInsertParams } from '../../src/store/journal-columns.js';
import { ackingChannel, type PendingAcks } from './acking-channel.js';

export type Build = 'vigil' | 'minimum' | 'vigil-rx' | 'minimum-rx';
export const BUILDS: readonly Build[] = ['vigil', 'minimum', 'vigil-rx', 'minimum-rx'];

export interface Loop {
  submit(device: number, done: () => void): void;
  commits(): number;
  close(): Promise<void>;
}

const RAW = Buffer.from('"SIA-DCS"0001R1L1#100000[#100000|NBA01]_12:00:00,11-24-2026');

function account(device: number): string {
  return String(100000 + device);
}

function decodedEvent(device: number): DecodedEvent {
  return {
    protocol: 'SIA-DCS',
    account: account(device),
    receiver: 'R1',
    line: 'L1',
    sequence: '0001',
    encrypted: false,
    eventClass: 'alarm',
    code: 'BA',
    groupNo: '1',
    zoneNo: '01',
    deviceTime: null,
    deviceTimeText: null,
  };
}

function decodedFrame(device: number): FrameItem {
  return {
    kind: 'frame',
    receiver: { id: 1, kind: 'tcp' },
    transport: 'tcp',
    remoteAddress: `127.0.0.1:${40000 + device}`,
    receivedAt: Date.now(),
    session: null,
    raw: RAW,
    events: [decodedEvent(device)],
    linkTest: false,
    account: account(device),
    device: null,
  };
}

/** Each device's frames as the simulator sends them: plain SIA-DCS, a timestamp, sequence 0001, 0002 … */
class FrameSource {
  private readonly sequences: number[] = [];
  private readonly counts: number[] = [];

  next(device: number): Buffer {
    const sequence = nextSequence(this.sequences[device] ?? 0);
    this.sequences[device] = sequence;
    const n = (this.counts[device] ?? 0) + 1;
    this.counts[device] = n;
    const header: FrameHeader = {
      token: 'SIA-DCS',
      account: account(device),
      receiver: '1',
      line: '1',
      key: null,
      timestamps: true,
    };
    return eventFrame(header, { sequence: sequenceText(sequence), time: Date.now() }, n);
  }
}

async function vigilIngest(path: string): Promise<{ ingest: EventIngest; close(): Promise<void> }> {
  const logger = createLogger('cycle', () => undefined, 'error');
  // The gateway's topology: the store and its one writer thread; the store closes the writer.
  const { store, writer } = storeWithWriter(path, logger, new HealthRegistry());
  await store.start();
  const ingest = new EventIngest({
    writer: borrowedWriter(writer),
    logger,
    sessionLogCount: () => 5,
  });
  return {
    ingest,
    close: async () => {
      await ingest.close();
      await store.stop();
    },
  };
}

async function vigilLoop(path: string): Promise<Loop> {
  const { ingest, close } = await vigilIngest(path);
  return {
    submit: (device, done) => ingest.submitTo([decodedFrame(device)], { committed: done, failed: done }),
    commits: () => ingest.stats.flushes,
    close,
  };
}

/**
 * One FrameSession per device over a channel whose write() is the device reading its ACK. Frames
 * reach the sessions in the next turn of the event loop, all that turn's together, as one epoll
 * wait hands over every readable socket.
 */
async function vigilRxLoop(path: string): Promise<Loop> {
  const { ingest, close } = await vigilIngest(path);
  const settings = {
    id: 1,
    name: 'cycle',
    port: 0,
    bind_address: '127.0.0.1',
    require_encryption: false,
    time_window_past_s: 40,
    time_window_future_s: 20,
    check_plain_timestamps: false,
    accept_local_time: false,
    tolerate_binary_crc: true,
    tolerate_cr_counted: true,
    tolerate_trailing_bytes: true,
    tolerate_empty_line: true,
    tolerate_text_account: false,
  };
  const profile = new Dc09Rules('tcp', settings);
  const counters = new ReceiverCounters();
  const links = new LinkRegistry({ objects: { get: () => null }, clock: systemClock, logger: silentLogger });
  const deps = {
    rules: profile,
    deviceLink: profile,
    counters,
    ingest,
    links,
    clock: systemClock,
    logger: silentLogger,
    maxInFlight: 64,
  };
  const frames = new FrameSource();
  const sessions: FrameSession[] = [];
  const waiting: PendingAcks = [];
  const arriving: number[] = [];
  const deliver = (): void => {
    const devices = arriving.splice(0);
    for (const device of devices) sessions[device]!.feed(frames.next(device));
  };
  const sessionOf = (device: number): FrameSession => {
    let session = sessions[device];
    if (!session) {
      const channel = ackingChannel(`127.0.0.1:${40000 + device}`, waiting, device);
      session = new FrameSession(channel, deps);
      sessions[device] = session;
    }
    return session;
  };
  return {
    submit: (device, done) => {
      sessionOf(device);
      waiting[device] = done;
      if (arriving.push(device) === 1) setImmediate(deliver);
    },
    commits: () => ingest.stats.flushes,
    close: async () => {
      for (const session of sessions) session.close();
      await close();
    },
  };
}

/** The durable minimum's writer thread (store-minimal.ts) and its send-when-free loop; `decode` adds its receiver path. */
async function minimumLoop(path: string, decode: boolean): Promise<Loop> {
  const thread = new Worker(fileURLToPath(new URL('./store-minimal.js', import.meta.url)), { workerData: path });
  await new Promise((resolve) => thread.once('online', resolve));
  const frames = new FrameSource();
  const framers: Dc09Framer[] = [];
  let values: unknown[] = [];
  let waiting: Array<() => void> = [];
  let inFlight: Array<() => void> = [];
  let commits = 0;
  const send = (): void => {
    if (inFlight.length > 0 || waiting.length === 0) return;
    inFlight = waiting;
    waiting = [];
    const batch = values;
    values = [];
    thread.postMessage(batch);
  };
  thread.on('message', () => {
    commits++;
    const done = inFlight;
    inFlight = [];
    for (const d of done) d();
    send();
  });
  const take = (device: number, done: () => void): void => {
    if (!decode) {
      const item = decodedFrame(device);
      for (const e of item.events) values.push(...toInsertParams(journalRow(e, item)));
      waiting.push(done);
      return;
    }
    const framer = (framers[device] ??= new Dc09Framer());
    const item = {
      kind: 'frame',
      receiver: { id: 1, kind: 'tcp' },
      transport: 'tcp',
      remoteAddress: `127.0.0.1:${40000 + device}`,
      receivedAt: Date.now(),
    } as FrameItem;
    for (const frame of framer.push(frames.next(device))) {
      if (frame.kind !== 'frame') continue;
      const decision = handleFrame(frame.body, {
        now: Date.now(),
        key: null,
        requireEncryption: false,
        checkPlainTimestamps: false,
        acceptLocalTime: false,
      });
      if (decision.action !== 'ack') continue;
      for (const e of decision.events) values.push(...toInsertParams(journalRow(e, { ...item, raw: frame.raw })));
      // The reply is written after the commit: done() stands for that write.
      waiting.push(done);
    }
  };
  const arriving: Array<[number, () => void]> = [];
  const deliver = (): void => {
    for (const [device, done] of arriving.splice(0)) take(device, done);
    send();
  };
  return {
    submit: (device, done) => {
      if (arriving.push([device, done]) === 1) setImmediate(deliver);
    },
    commits: () => commits,
    close: async () => {
      await thread.terminate();
    },
  };
}

export function makeLoop(build: Build, path: string): Promise<Loop> {
  switch (build) {
    case 'vigil':
      return vigilLoop(path);
    case 'vigil-rx':
      return vigilRxLoop(path);
    case 'minimum':
      return minimumLoop(path, false);
    case 'minimum-rx':
      return minimumLoop(path, true);
  }
}
