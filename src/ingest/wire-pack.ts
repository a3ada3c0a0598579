/**
 * A journal batch's ops as ONE flat array of primitives for the trip to the writer thread, and
 * back (docs/receivers.md §Group commit, "Crossing to the writer"). Structured clone writes every
 * property name of every object, and the receiving thread looks each name up again to rebuild the
 * object's shape; a flat array of numbers, strings and the rows' tuples clones as values only.
 * Measured, the object form cost ~2 µs per frame on each side at 100 frames per batch
 * (docs/writer.md §Crossing). Pure: values in, values out.
 *
 * Layout, op after op (`-1` marks an absent session or device):
 *   close  0, session…, at, events, bytesIn, bytesOut
 *   frame  1, base…, session…, account, linkTest, quirks, device…, rawOffset, rawLength, rows
 *   hello  2, base…, session…, uid, account, hwId, firmware
 * base = receiverId, receiverKind, transport, remoteAddress, receivedAt;
 * session = key, id, connectedAt, remoteAddress (or -1); device = objectId, uid, account (or -1);
 * rows = the frame's WireRow tuples, as one array.
 */
import type { ReceiverKind } from '../store/types.js';
import type { WireFrame, WireHello, WireOp, WireRow, WireSession } from './wire.js';

/** Numbers, strings, booleans, nulls and each frame's wire rows, op after op (layout above). */
export type PackedOps = Array<number | string | boolean | null | WireRow[]>;

const CLOSE = 0;
const FRAME = 1;
const HELLO = 2;
const NONE = -1;

export function packOps(ops: readonly WireOp[]): PackedOps {
  const out: PackedOps = [];
  for (const op of ops) {
    if (op.kind === 'close') {
      out.push(CLOSE);
      pushSession(out, op.session);
      out.push(op.at, op.events, op.bytesIn, op.bytesOut);
      continue;
    }
    out.push(
      op.kind === 'frame' ? FRAME : HELLO,
      op.receiverId,
      op.receiverKind,
      op.transport,
      op.remoteAddress,
      op.receivedAt,
    );
    pushSession(out, op.session);
    if (op.kind === 'frame') {
      out.push(op.account, op.linkTest, op.quirks);
      const device = op.device;
      if (device) out.push(device.objectId, device.uid, device.account);
      else out.push(NONE);
      out.push(op.raw[0], op.raw[1], op.rows);
    } else {
      out.push(op.uid, op.account, op.hwId, op.firmware);
    }
  }
  return out;
}

export function unpackOps(packed: PackedOps): WireOp[] {
  const ops: WireOp[] = [];
  const p = packed;
  let i = 0;
  const session = (): WireSession | null => {
    const key = p[i++] as number;
    if (key === NONE) return null;
    const s: WireSession = {
      key,
      id: p[i] as number | null,
      connectedAt: p[i + 1] as number,
      remoteAddress: p[i + 2] as string,
    };
    i += 3;
    return s;
  };
  while (i < p.length) {
    const kind = p[i++];
    if (kind === CLOSE) {
      const s = session()!;
      ops.push({
        kind: 'close',
        session: s,
        at: p[i] as number,
        events: p[i + 1] as number,
        bytesIn: p[i + 2] as number,
        bytesOut: p[i + 3] as number,
      });
      i += 4;
      continue;
    }
    const receiverId = p[i] as number;
    const receiverKind = p[i + 1] as ReceiverKind;
    const transport = p[i + 2] as string;
    const remoteAddress = p[i + 3] as string;
    const receivedAt = p[i + 4] as number;
    i += 5;
    const s = session();
    if (kind === FRAME) {
      const account = p[i] as string | null;
      const linkTest = p[i + 1] as boolean;
      const quirks = p[i + 2] as number;
      i += 3;
      let device: WireFrame['device'] = null;
      if (p[i] === NONE) i++;
      else {
        device = { objectId: p[i] as number, uid: p[i + 1] as string, account: p[i + 2] as string };
        i += 3;
      }
      const raw: [number, number] = [p[i] as number, p[i + 1] as number];
      const rows = p[i + 2] as WireRow[];
      i += 3;
      ops.push({
        kind: 'frame',
        receiverId,
        receiverKind,
        transport,
        remoteAddress,
        receivedAt,
        session: s,
        account,
        linkTest,
        quirks,
        device,
        raw,
        rows,
      });
      continue;
    }
    if (kind !== HELLO) throw new Error(`packed journal batch: unknown op ${String(kind)} at ${i - 1}`);
    const hello: WireHello = {
      kind: 'hello',
      receiverId,
      receiverKind,
      transport,
      remoteAddress,
      receivedAt,
      session: s,
      uid: p[i] as string,
      account: p[i + 1] as string | null,
      hwId: p[i + 2] as string | null,
      firmware: p[i + 3] as string | null,
    };
    i += 4;
    ops.push(hello);
  }
  return ops;
}

function pushSession(out: PackedOps, s: WireSession | null): void {
  if (s) out.push(s.key, s.id, s.connectedAt, s.remoteAddress);
  else out.push(NONE);
}
