/**
 * One queued batch -> its wire form (src/writer/wire.ts) plus what the main thread keeps to apply,
 * publish or undo when the writer answers (docs/receivers.md §Group commit). Runs on the main
 * thread when the batch leaves: journal rows are built here, raw frames are packed into one
 * transferable buffer, session event counts are added (undone if it fails). Which object a frame
 * belongs to, and so its rows' startup flags, is decided by the writer only.
 */
import { DEFAULT_SESSION_LOG_COUNT } from '../settings/schema.js';
import { wireRow, type WireRow } from '../store/journal-columns.js';
import type { NewEvent } from '../core/event-row.js';
import type { StartupRules } from '../writer/startup-events.js';
import { journalRow } from './journal-row.js';
import type { FrameItem, HelloItem, IngestItem, IngestSink, LinkedDevice, SessionLog } from './types.js';
import type { WireBatch, WireFrame, WireOp, WireSession } from '../writer/wire.js';

export type Op =
  | {
      kind: 'items';
      items: readonly IngestItem[];
      sink: IngestSink;
      /** performance.now() at submit (ACK latency for the metrics), 0 when nobody measures. */
      at: number;
    }
  | { kind: 'close'; session: SessionLog; at: number };

export type MutableRow = { -readonly [K in keyof NewEvent]: NewEvent[K] };

/**
 * One frame or hello of a batch, in the batch's order (the order of WireResult.objectIds): where the
 * writer's answer for it is found.
 */
export interface SentItem {
  /** A frame's rows: Sent.rows[firstRow] onwards (rows are numbered across the batch, as their ids and flags). */
  readonly firstRow: number;
  readonly rowCount: number;
  /** A hello's place among the batch's hellos (WireResult.helloObjects); -1 for a frame. */
  readonly hello: number;
}

/** A batch that left: the wire form plus what this thread must apply, publish or undo. */
export interface Sent {
  readonly ops: readonly Op[];
  batch: WireBatch;
  /** Every frame and hello of the batch, in order. */
  readonly items: SentItem[];
  /** Every journal row of the batch, in order, as the bus announces them (objectId and flags set after COMMIT). */
  readonly rows: MutableRow[];
  readonly raws: Uint8Array[];
  rawLength: number;
  hellos: number;
  readonly sessions: Map<number, SessionLog>;
  readonly devices: Map<number, LinkedDevice>;
  readonly counted: Array<[SessionLog, number]>;
  linkTests: number;
}

export interface BatchEncoderOptions {
  readonly startupRules?: (() => StartupRules) | undefined;
  readonly sessionLogCount?: (() => number) | undefined;
}

export class BatchEncoder {
  private readonly options: BatchEncoderOptions;
  private readonly sessionKeys = new WeakMap<SessionLog, number>();
  private nextSessionKey = 1;

  constructor(options: BatchEncoderOptions) {
    this.options = options;
  }

  /** The wire form of the queued ops; counts session events now (undone if the batch fails). */
  encode(ops: readonly Op[]): Sent {
    const sent = emptySent(ops);
    const wire: WireOp[] = [];
    for (const op of sent.ops) {
      if (op.kind === 'close') {
        const s = op.session;
        wire.push({
          kind: 'close',
          session: this.wireSession(s, sent),
          at: op.at,
          events: s.events,
          bytesIn: s.bytesIn,
          bytesOut: s.bytesOut,
        });
        continue;
      }
      for (const item of op.items) wire.push(item.kind === 'frame' ? this.frame(item, sent) : this.hello(item, sent));
    }
    // One buffer for every raw frame: transferred to the writer thread instead of cloned (a
    // frame is usually a view into a much larger socket chunk, which a clone would copy whole).
    const raw = new Uint8Array(sent.rawLength);
    let at = 0;
    for (const r of sent.raws) {
      raw.set(r, at);
      at += r.byteLength;
    }
    sent.batch = {
      ops: wire,
      raw,
      sessionLogCount: this.options.sessionLogCount?.() ?? DEFAULT_SESSION_LOG_COUNT,
      startup: this.options.startupRules?.() ?? null,
    };
    return sent;
  }

  private frame(item: FrameItem, sent: Sent): WireFrame {
    const events = item.events;
    const n = events.length;
    const firstRow = sent.rows.length;
    const wired: WireRow[] = [];
    for (const event of events) {
      const row = journalRow(event, item) as MutableRow;
      sent.rows.push(row);
      wired.push(wireRow(row));
    }
    sent.items.push({ firstRow, rowCount: n, hello: -1 });
    let raw: [number, number] = [0, 0];
    if (n > 0) {
      raw = [sent.rawLength, item.raw.byteLength];
      sent.raws.push(item.raw);
      sent.rawLength += item.raw.byteLength;
    }
    if (item.linkTest) sent.linkTests++;
    if (item.session && n > 0) {
      item.session.events += n;
      sent.counted.push([item.session, n]);
    }
    const device = item.device;
    if (device) sent.devices.set(device.objectId, device);
    return {
      kind: 'frame',
      receiverId: item.receiver.id,
      receiverKind: item.receiver.kind,
      transport: item.transport,
      remoteAddress: item.remoteAddress,
      receivedAt: item.receivedAt,
      session: item.session ? this.wireSession(item.session, sent) : null,
      account: events.length > 0 ? events[0]!.account || null : item.account,
      linkTest: item.linkTest,
      quirks: item.quirks ?? 0,
      device: device ? { objectId: device.objectId, uid: device.uid, account: device.account } : null,
      raw,
      rows: wired,
    };
  }

  private hello(item: HelloItem, sent: Sent): WireOp {
    sent.items.push({ firstRow: sent.rows.length, rowCount: 0, hello: sent.hellos++ });
    return {
      kind: 'hello',
      receiverId: item.receiver.id,
      receiverKind: item.receiver.kind,
      transport: item.transport,
      remoteAddress: item.remoteAddress,
      receivedAt: item.receivedAt,
      session: item.session ? this.wireSession(item.session, sent) : null,
      uid: item.uid,
      account: item.account ?? null,
      hwId: item.hwId ?? null,
      firmware: item.firmware ?? null,
      adopt: item.adopt === true,
    };
  }

  private wireSession(session: SessionLog, sent: Sent): WireSession {
    let key = this.sessionKeys.get(session);
    if (key === undefined) {
      key = this.nextSessionKey++;
      this.sessionKeys.set(session, key);
    }
    sent.sessions.set(key, session);
    return { key, id: session.id, connectedAt: session.connectedAt, remoteAddress: session.remoteAddress };
  }
}

function emptySent(ops: readonly Op[]): Sent {
  return {
    ops,
    batch: { ops: [], raw: new Uint8Array(0), sessionLogCount: 0, startup: null },
    items: [],
    rows: [],
    raws: [],
    rawLength: 0,
    hellos: 0,
    sessions: new Map(),
    devices: new Map(),
    counted: [],
    linkTests: 0,
  };
}
