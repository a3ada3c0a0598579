/**
 * Collects the VL-RSP packets of one request (docs/device-link.md §4.2). A pure state machine:
 * no sockets, no timers. The transport routes packets here by request id and owns the
 * NO_RESPONSE deadline and the disconnect.
 */
import type { CommandKind, DeviceCommandError } from '../../core/device-commands.js';
import type { ResponseMessage } from './messages.js';

export type AssembledReply =
  | { readonly ok: true; readonly packets: readonly Buffer[] }
  | { readonly ok: false; readonly error: DeviceCommandError };

export type AssemblyStep = { readonly state: 'pending' } | { readonly state: 'done'; readonly reply: AssembledReply };

type Packet = Pick<ResponseMessage, 'packetNumber' | 'packetCount' | 'status' | 'data'>;

const PENDING: AssemblyStep = { state: 'pending' };

export class ReplyAssembler {
  private readonly kind: CommandKind;
  private readonly packets: Buffer[] = [];
  private count: number | null = null;
  private result: AssemblyStep | null = null;

  constructor(kind: CommandKind) {
    this.kind = kind;
  }

  /** Packets accepted so far, in order. */
  get received(): number {
    return this.packets.length;
  }

  get done(): boolean {
    return this.result !== null;
  }

  /**
   * Feeds one packet. Checks run in this order, the first that applies decides:
   * a non-OK status; count 0, a count differing from the first packet's, or a number above the
   * count (INVALID_PACKET_COUNT); a number other than the next expected one
   * (INVALID_PACKET_NUMBER). Once done, further packets change nothing.
   */
  push(packet: Packet): AssemblyStep {
    if (this.result) return this.result;
    if (packet.status !== 'OK') return this.finish({ ok: false, error: this.statusError(packet.status) });
    const count = packet.packetCount;
    if (count === 0 || (this.count !== null && count !== this.count) || packet.packetNumber > count) {
      return this.finish({ ok: false, error: 'INVALID_PACKET_COUNT' });
    }
    if (packet.packetNumber !== this.packets.length + 1) {
      return this.finish({ ok: false, error: 'INVALID_PACKET_NUMBER' });
    }
    this.count = count;
    this.packets.push(packet.data);
    if (this.packets.length === count) return this.finish({ ok: true, packets: [...this.packets] });
    return PENDING;
  }

  private statusError(status: Exclude<Packet['status'], 'OK'>): DeviceCommandError {
    switch (status) {
      case 'MPASS':
        return 'MPASS_IS_INCORRECT';
      case 'BAD':
        return 'BAD_DATA';
      case 'REJ':
        // The control endpoint's error table has no rejection code: a device that refuses a
        // VL-CMD is reported as BAD_DATA ("data malformed or corrupted"), docs/device-link.md §4.2.
        return this.kind === 'config' ? 'CONFIG_REJECTED' : 'BAD_DATA';
    }
  }

  private finish(reply: AssembledReply): AssemblyStep {
    this.result = { state: 'done', reply };
    return this.result;
  }
}
