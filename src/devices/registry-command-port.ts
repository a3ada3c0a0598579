/**
 * The DeviceCommandPort the management API calls. It finds the addressed device among the
 * devices the caller may see (store objects whose UID ends with the partial UID,
 * docs/device-link.md §5), then hands the request to that device's live link. The link (the
 * device-link work) owns the wire, the 10 s deadline and the reply assembly.
 *   no visible match          -> NO_OBJECT
 *   several visible matches   -> AMBIGUOUS_UID (the API answers it in the contract's terms)
 *   one match, no live link   -> NO_CONNECTION, with the uid / hw_id / oid the store knows
 */
import type {
  DeviceCommandOutcome,
  DeviceCommandPort,
  DeviceCommandRequest,
  DeviceIdentity,
} from '../core/device-commands.js';
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';

/** The fields of a store ObjectRecord (src/store/types.ts) this port reads. */
export interface CommandTarget {
  readonly id: number;
  readonly account: string;
  readonly uid: string | null;
  readonly hwId: string | null;
  readonly receiverId: number;
}

export interface CommandTargetFinder {
  /** Main devices whose UID ends with `partial`, limited to `receiverIds` (null = all). */
  findByPartialUid(partial: string, receiverIds?: readonly number[] | null): CommandTarget[];
}

/** Resolves a device's override OID (store OidOverridesRepo.resolve); optional. */
export interface OverrideResolver {
  resolve(device: { uid?: string | null; account?: string | null }, relatedOid: string | null): string | null;
}

/** One connected device's command channel. */
export interface DeviceLinkHandle {
  execute(request: DeviceCommandRequest): Promise<DeviceCommandOutcome>;
}

/** The devices connected right now, by store object id. */
export interface LiveLinks {
  get(objectId: number): DeviceLinkHandle | undefined;
}

export interface RegistryCommandPortDeps {
  readonly objects: CommandTargetFinder;
  readonly links: LiveLinks;
  readonly logger: Logger;
  readonly overrides?: OverrideResolver;
}

export class RegistryCommandPort implements DeviceCommandPort {
  private readonly deps: RegistryCommandPortDeps;

  constructor(deps: RegistryCommandPortDeps) {
    this.deps = deps;
  }

  async execute(request: DeviceCommandRequest): Promise<DeviceCommandOutcome> {
    const visible = request.visibleReceivers;
    // The store filters by receiver already; filtering again keeps this port correct over any finder.
    const matches = this.deps.objects
      .findByPartialUid(request.partialUid, visible)
      .filter((o) => o.uid !== null && (visible === null || visible.includes(o.receiverId)));
    if (matches.length === 0) return { ok: false, error: 'NO_OBJECT' };
    if (matches.length > 1) return { ok: false, error: 'AMBIGUOUS_UID' };
    const target = matches[0]!;
    const device = this.identity(target);
    const link = this.deps.links.get(target.id);
    if (!link) return { ok: false, error: 'NO_CONNECTION', device };
    try {
      return await link.execute(request);
    } catch (err) {
      // A link that throws (socket torn down mid-command) is a lost connection, not a crash.
      this.deps.logger.warn('device link failed', { object_id: target.id, error: describeError(err) });
      return { ok: false, error: 'NO_CONNECTION', device };
    }
  }

  /** What the store knows; the OID is the override OID when one is set, else the account. */
  private identity(target: CommandTarget): DeviceIdentity {
    let oid = target.account;
    if (this.deps.overrides) {
      try {
        oid = this.deps.overrides.resolve({ uid: target.uid, account: target.account }, null) ?? target.account;
      } catch (err) {
        this.deps.logger.warn('override lookup failed', { object_id: target.id, error: describeError(err) });
      }
    }
    return { uid: target.uid ?? '', ...(target.hwId !== null ? { hwId: target.hwId } : {}), oid };
  }
}
