/**
 * A journal batch's ops packed for the trip to the writer thread, and back (docs/writer.md
 * §Crossing): their numbers in one transferred Float64Array, their strings once each
 * (value-pack.ts). Structured clone writes every property name of every object and every string
 * it meets, and the receiving thread rebuilds each; packed, a batch's rows and ops cross as one
 * buffer moved and a short list of distinct strings. Pure: values in, values out.
 *
 * Layout, op after op (`-1` marks an absent session or device):
 *   close  0, session…, at, events, bytesIn, bytesOut
 *   frame  1, base…, session…, account, linkTest, quirks, device…, rawOffset, rawLength, row count, rows…
 *   hello  2, base…, session…, uid, account, hwId, firmware, adopt
 * base = receiverId, receiverKind, transport, remoteAddress, receivedAt;
 * session = key, id, connectedAt, remoteAddress (or -1); device = objectId, uid, account (or -1);
 * rows = each wire row's values in its order (journal-columns.ts packRow).
 */
import { packRow, readRow } from '../store/journal-columns.js';
import type { ReceiverKind } from '../store/types.js';
import { ValuePacker, ValueReader, type PackedValues } from './value-pack.js';
import type { WireFrame, WireHello, WireOp, WireRow, WireSession } from './wire.js';

export type PackedOps = PackedValues;

const CLOSE = 0;
const FRAME = 1;
const HELLO = 2;
const NONE = -1;
/** Numbers per op and per row, about: the packer's first size (it grows when a batch needs more). */
const NUMBERS_PER_OP = 24;
const NUMBERS_PER_ROW = 16;

export function packOps(ops: readonly WireOp[]): PackedOps {
  let capacity = ops.length * NUMBERS_PER_OP;
  for (const op of ops) if (op.kind === 'frame') capacity += op.rows.length * NUMBERS_PER_ROW;
  const p = new ValuePacker(capacity);
  for (const op of ops) {
    if (op.kind === 'close') {
      p.num(CLOSE);
      packSession(p, op.session);
      p.num(op.at);
      p.num(op.events);
      p.num(op.bytesIn);
      p.num(op.bytesOut);
      continue;
    }
    p.num(op.kind === 'frame' ? FRAME : HELLO);
    p.num(op.receiverId);
    p.str(op.receiverKind);
    p.str(op.transport);
    p.str(op.remoteAddress);
    p.num(op.receivedAt);
    packSession(p, op.session);
    if (op.kind === 'frame') {
      p.str(op.account);
      p.bool(op.linkTest);
      p.num(op.quirks);
      const device = op.device;
      if (device) {
        p.num(device.objectId);
        p.str(device.uid);
        p.str(device.account);
      } else p.num(NONE);
      p.num(op.raw[0]);
      p.num(op.raw[1]);
      p.num(op.rows.length);
      for (const row of op.rows) packRow(p, row);
    } else {
      p.str(op.uid);
      p.str(op.account);
      p.str(op.hwId);
      p.str(op.firmware);
      p.bool(op.adopt);
    }
  }
  return p.done();
}

export function unpackOps(packed: PackedOps): WireOp[] {
  const ops: WireOp[] = [];
  const r = new ValueReader(packed);
  while (!r.done) {
    const kind = r.int();
    if (kind === CLOSE) {
      ops.push({
        kind: 'close',
        session: readSession(r)!,
        at: r.int(),
        events: r.int(),
        bytesIn: r.int(),
        bytesOut: r.int(),
      });
      continue;
    }
    if (kind !== FRAME && kind !== HELLO)
      throw new Error(`packed journal batch: unknown op ${String(kind)} at ${r.at - 1}`);
    const receiverId = r.int();
    const receiverKind = r.str() as ReceiverKind;
    const transport = r.str()!;
    const remoteAddress = r.str()!;
    const receivedAt = r.int();
    const session = readSession(r);
    if (kind === FRAME) {
      const account = r.str();
      const linkTest = r.bool();
      const quirks = r.int();
      const objectId = r.int();
      const device: WireFrame['device'] = objectId === NONE ? null : { objectId, uid: r.str()!, account: r.str()! };
      const raw: [number, number] = [r.int(), r.int()];
      const count = r.int();
      // Filled by push: the rows stay a packed array (docs/writer.md §Crossing).
      const rows: WireRow[] = [];
      for (let i = 0; i < count; i++) rows.push(readRow(r));
      ops.push({
        kind: 'frame',
        receiverId,
        receiverKind,
        transport,
        remoteAddress,
        receivedAt,
        session,
        account,
        linkTest,
        quirks,
        device,
        raw,
        rows,
      });
      continue;
    }
    const hello: WireHello = {
      kind: 'hello',
      receiverId,
      receiverKind,
      transport,
      remoteAddress,
      receivedAt,
      session,
      uid: r.str()!,
      account: r.str(),
      hwId: r.str(),
      firmware: r.str(),
      adopt: r.bool(),
    };
    ops.push(hello);
  }
  return ops;
}

function packSession(p: ValuePacker, s: WireSession | null): void {
  if (!s) {
    p.num(NONE);
    return;
  }
  p.num(s.key);
  p.num(s.id);
  p.num(s.connectedAt);
  p.str(s.remoteAddress);
}

function readSession(r: ValueReader): WireSession | null {
  const key = r.int();
  if (key === NONE) return null;
  return { key, id: r.num(), connectedAt: r.int(), remoteAddress: r.str()! };
}
