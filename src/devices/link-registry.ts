/**
 * The live device links, by store object id: what RegistryCommandPort asks for a connected
 * device (docs/device-link.md §4). A TCP session attaches a link when the device's VL-HELLO was
 * welcomed and detaches it when the connection ends. The registry lives as long as the gateway,
 * across receiver restarts.
 *   - a device that reconnects (and proved its key again) replaces its old link; the old one's
 *     commands end NO_CONNECTION; from another address while the old link was alive, that is
 *     journaled as an identity conflict (`new_address`, docs/device-link.md §4.5);
 *   - a connection that ends fails its in-flight and queued commands NO_CONNECTION at once.
 */
import type { Clock } from '../core/clock.js';
import { DEVICE_REPLY_TIMEOUT_MS, type DeviceIdentity } from '../core/device-commands.js';
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { systemTimers, type TimerApi } from '../protocols/device-link/command-queue.js';
import type { LinkKey } from '../protocols/device-link/codec.js';
import { LinkCommander } from '../protocols/device-link/link-commander.js';
import { MemoryDeviceKeys, type DeviceKeyDirectory } from './device-keys.js';
import { hostOf, type IdentityConflict, type IdentityConflicts } from './identity-conflicts.js';
import type { DeviceLinkHandle, LiveLinks, OverrideResolver } from './registry-command-port.js';

/** What the registry reads to tell the API who answered (store ObjectsRepo.get). */
export interface LinkObjectReader {
  get(id: number): { readonly uid: string | null; readonly hwId: string | null; readonly account: string } | null;
}

export interface LinkRegistryDeps {
  readonly objects: LinkObjectReader;
  readonly overrides?: OverrideResolver;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly timers?: TimerApi;
  /** The device reply deadline; DEVICE_REPLY_TIMEOUT_MS (10 s) unless a test injects a shorter one. */
  readonly timeoutMs?: number;
  /** Device keys for the HELLO proof (the store's); in memory when absent (tests of other parts). */
  readonly keys?: DeviceKeyDirectory;
  /** Where identity conflicts are journaled and shown; only logged when absent. */
  readonly conflicts?: IdentityConflicts;
}

export interface AttachRequest {
  readonly objectId: number;
  readonly uid: string;
  /** Writes one frame on the device's connection; false when it is gone. */
  readonly send: (frame: Buffer) => boolean;
  /** The link's key: the connection's SessionKey from the handshake (ProofDecision.sessionKey). */
  readonly key: LinkKey;
  /** "host:port" of the connection, and its receiver: a new address while the old link lives is a conflict. */
  readonly remote?: string;
  readonly receiverId?: number;
}

export class LinkRegistry implements LiveLinks {
  private readonly deps: LinkRegistryDeps;
  private readonly links = new Map<number, LinkCommander>();
  private readonly remotes = new Map<number, string>();
  /** The device keys the HELLO proof is checked against. */
  readonly keys: DeviceKeyDirectory;

  constructor(deps: LinkRegistryDeps) {
    this.deps = deps;
    this.keys = deps.keys ?? new MemoryDeviceKeys();
  }

  /** An identity conflict seen by a TCP session (or by attach): journaled, rate-limited, shown on Status. */
  reportConflict(conflict: IdentityConflict): void {
    if (this.deps.conflicts) this.deps.conflicts.report(conflict);
    else
      this.deps.logger.warn('device identity conflict', {
        uid: conflict.uid,
        remote: conflict.remote,
        reason: conflict.reason,
      });
  }

  /** The deadline commands get (tests check the default is the contract's 10 s). */
  get timeoutMs(): number {
    return this.deps.timeoutMs ?? DEVICE_REPLY_TIMEOUT_MS;
  }

  get size(): number {
    return this.links.size;
  }

  get(objectId: number): DeviceLinkHandle | undefined {
    return this.links.get(objectId);
  }

  /** The live links by object id (the tracker's time sync walks them). */
  entries(): IterableIterator<[number, LinkCommander]> {
    return this.links.entries();
  }

  /** Makes a welcomed connection the device's live link; an older link of the device is closed. */
  attach(request: AttachRequest): LinkCommander {
    const commander = new LinkCommander({
      send: request.send,
      key: request.key,
      identity: () => this.identity(request.objectId, request.uid),
      clock: this.deps.clock,
      timers: this.deps.timers ?? systemTimers,
      timeoutMs: this.timeoutMs,
    });
    const previous = this.links.get(request.objectId);
    const previousRemote = this.remotes.get(request.objectId);
    this.links.set(request.objectId, commander);
    if (request.remote !== undefined) this.remotes.set(request.objectId, request.remote);
    if (previous) {
      this.deps.logger.info('device reconnected: newer link replaces the old one', {
        object_id: request.objectId,
        uid: request.uid,
      });
      previous.close();
      // The new connection proved the key, so it wins; another address while the old link lived is worth a look.
      if (
        previousRemote !== undefined &&
        request.remote !== undefined &&
        hostOf(previousRemote) !== hostOf(request.remote)
      ) {
        this.reportConflict({
          uid: request.uid,
          remote: request.remote,
          reason: 'new_address',
          receiverId: request.receiverId ?? 0,
        });
      }
    }
    return commander;
  }

  /** The connection of `commander` ended: its commands fail NO_CONNECTION now. */
  detach(objectId: number, commander: LinkCommander): void {
    commander.close();
    if (this.links.get(objectId) === commander) {
      this.links.delete(objectId);
      this.remotes.delete(objectId);
    }
  }

  /** Who answered, read when the answer is given: the stored hw id and the override OID if one is set. */
  private identity(objectId: number, uid: string): DeviceIdentity {
    try {
      const object = this.deps.objects.get(objectId);
      if (!object) return { uid };
      const oid = this.deps.overrides?.resolve({ uid: object.uid, account: object.account }, null) ?? object.account;
      return {
        uid: object.uid ?? uid,
        ...(object.hwId !== null ? { hwId: object.hwId } : {}),
        ...(oid !== '' ? { oid } : {}),
      };
    } catch (err) {
      // A store hiccup must not turn a device's answer into an exception.
      this.deps.logger.warn('cannot read device identity', { object_id: objectId, error: describeError(err) });
      return { uid };
    }
  }
}
