/**
 * The device side of the device link (docs/device-link.md), pure: its answers to VL-CMD / VL-CFG
 * (VL-RSP packets) and VL-TIME (VL-ACK), with the configured faults (the HELLO handshake is
 * link-handshake.ts). Replies are sealed with the session key exactly when the gateway's message
 * was (a link is encrypted both ways or not at all, docs/device-link.md §2.6).
 *
 * Faults, each applied to every command (docs/simulator.md §Faults):
 *   wrong-number  packets numbered 0..n-1 instead of 1..n      -> the gateway's INVALID_PACKET_NUMBER
 *   wrong-count   every packet declares a packet count of 0     -> INVALID_PACKET_COUNT
 *   silence       no reply at all                               -> NO_RESPONSE after the gateway's deadline
 *   mpass         one packet, status MPASS                      -> MPASS_IS_INCORRECT
 *   bad           one packet, status BAD                        -> BAD_DATA
 *   rej           one packet, status REJ                        -> BAD_DATA (control) / CONFIG_REJECTED (config)
 */
import type { RandomBytes } from '../protocols/dc09/crypto.js';
import { encodeResponse, encodeTimeAck, type LinkKey } from '../protocols/device-link/codec.js';
import type { CommandMessage, ResponseStatus, TimeMessage } from '../protocols/device-link/messages.js';
import type { LinkBehaviour } from './sim-options.js';

export interface LinkMoment {
  /** The device's clock, ms since the epoch. */
  readonly now: number;
  /** The link's key (the connection's session key); used only when the gateway's message was encrypted. */
  readonly key: LinkKey;
  readonly randomBytes?: RandomBytes;
}

function options(encrypted: boolean, m: LinkMoment): { key: LinkKey; randomBytes?: RandomBytes } {
  return { key: encrypted ? m.key : null, ...(m.randomBytes ? { randomBytes: m.randomBytes } : {}) };
}

function statusOf(command: CommandMessage, b: LinkBehaviour): ResponseStatus {
  if (b.fault === 'mpass') return 'MPASS';
  if (b.fault === 'bad') return 'BAD';
  if (b.fault === 'rej') return 'REJ';
  if (b.masterPassword === null || command.auth.mode === 'omit') return 'OK';
  return command.auth.mode === 'code' && command.auth.code === b.masterPassword ? 'OK' : 'MPASS';
}

/** The VL-RSP frames answering one command, in sending order; [] for `silence`. */
export function answerCommand(
  command: CommandMessage & { encrypted: boolean },
  b: LinkBehaviour,
  m: LinkMoment,
): Buffer[] {
  if (b.fault === 'silence') return [];
  const o = options(command.encrypted, m);
  const status = statusOf(command, b);
  const base = { seq: command.seq, timestamp: m.now };
  if (status !== 'OK')
    return [encodeResponse({ ...base, packetNumber: 1, packetCount: 1, status, data: Buffer.alloc(0) }, o)];
  // Without Q1 the device answers with its status only: one packet, no data (CommandMessage.replyWanted).
  const count = command.replyWanted ? b.replyPackets : 1;
  const data = command.replyWanted ? (b.replyData ?? command.data) : Buffer.alloc(0);
  const frames: Buffer[] = [];
  for (let i = 1; i <= count; i++) {
    const packetNumber = b.fault === 'wrong-number' ? i - 1 : i;
    const packetCount = b.fault === 'wrong-count' ? 0 : count;
    frames.push(encodeResponse({ ...base, packetNumber, packetCount, status: 'OK', data }, o));
  }
  return frames;
}

/** VL-ACK for a VL-TIME (same request id). */
export function answerTime(time: TimeMessage & { encrypted: boolean }, m: LinkMoment): Buffer {
  return encodeTimeAck({ seq: time.seq, timestamp: m.now }, options(time.encrypted, m));
}
