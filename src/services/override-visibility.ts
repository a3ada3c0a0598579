/**
 * Whether a caller limited to some receivers may set an OID override (docs/api.md "OID override",
 * visible receivers). An override changes the account a device's events are forwarded under, so
 * it must only reach devices the caller can see:
 *   - by uid: the device with that UID exists and is on a visible receiver;
 *   - by oid: at least one main device reports that account, and every one that does is on a
 *     visible receiver (an OID override applies to all of them);
 *   - related_oid: related objects live on their main device's receiver, so the main device decides.
 * A device that does not exist is refused like an invisible one: the answer never tells whether it
 * exists. Callers who see every receiver (visibleReceivers null) may set overrides for devices
 * that never connected yet.
 */
import type { ApiObjectRow, ApiStorePort } from './ports.js';
import type { OidOverride } from './oid-override-request.js';

export function overrideAllowed(
  objects: ApiStorePort['objects'],
  override: OidOverride,
  visibleReceivers: readonly number[] | null,
): boolean {
  if (visibleReceivers === null) return true;
  const seen = (o: ApiObjectRow): boolean => visibleReceivers.includes(o.receiverId);
  if (override.matchKind === 'uid') {
    const device = objects.findByUid(override.matchValue);
    return device !== null && device.mainObjectId === null && seen(device);
  }
  const devices = objects.findByOverrideAccount(override.matchValue);
  return devices.length > 0 && devices.every(seen);
}
