/**
 * Which objects a committed batch heard, and when (docs/receivers.md §Group commit): once per
 * object, its latest sighting, in first-sight order. A pure function of the batch and the objects
 * its items were attributed to, so the writer (for the stored last_seen, seen-log.ts) and the main
 * thread (for the bus's `object-seen`) compute the same thing and the reply need not carry it.
 */
import type { Sight } from './seen-log.js';
import type { WireFrame, WireHello, WireOp } from './wire.js';

/** `objectIds`: per frame/hello op, in order (close ops have none), as WireResult.objectIds. */
export function collectSightings(ops: readonly WireOp[], objectIds: ReadonlyArray<number | null>): Map<number, Sight> {
  const seen = new Map<number, Sight>();
  let oi = 0;
  for (const op of ops) {
    if (op.kind === 'close') continue;
    const objectId = objectIds[oi++] ?? null;
    if (objectId === null) continue;
    if (op.kind === 'hello') {
      see(seen, objectId, op, false);
      continue;
    }
    // A related object's message is also a sighting of the device that carried it.
    if (op.device && op.device.objectId !== objectId) see(seen, op.device.objectId, op, false);
    see(seen, objectId, op, op.linkTest);
  }
  return seen;
}

function see(seen: Map<number, Sight>, objectId: number, op: WireFrame | WireHello, ping: boolean): void {
  const known = seen.get(objectId);
  if (!known) {
    seen.set(objectId, { at: op.receivedAt, ping, remote: op.remoteAddress });
    return;
  }
  if (op.receivedAt > known.at) known.at = op.receivedAt;
  if (ping) known.ping = true;
  known.remote = op.remoteAddress;
}
