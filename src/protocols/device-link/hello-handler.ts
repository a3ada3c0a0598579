/**
 * The gateway's answer to a VL-HELLO (docs/device-link.md §4.1), decided without I/O like the
 * DC-09 frame handler: the transport writes `reply` and, on `welcome`, registers the UID.
 */
import { checkWindow } from '../dc09/timestamp.js';
import { encodeRefuse, encodeWelcome } from './codec.js';
import { LINK_VERSION, type DecodedLinkMessage, type HelloMessage, type LinkDecodeError, type RefuseReason } from './messages.js';

export interface HelloContext {
  readonly now: number;
  /** The receiver's key; null when the receiver has none. */
  readonly key: Buffer | null;
  /** The receiver accepts encrypted traffic only. */
  readonly requireEncryption: boolean;
  /** DC-09 acceptance window for the timestamp of an encrypted HELLO (defaults 40 s / 20 s). */
  readonly windowPastS: number;
  readonly windowFutureS: number;
}

export type HelloDecision =
  | {
      readonly action: 'welcome';
      readonly reply: Buffer;
      readonly hello: HelloMessage & { readonly encrypted: boolean };
      /** The key of this link: every later message both ways is encrypted iff this is set. */
      readonly sessionKey: Buffer | null;
      /** The version both sides speak from now on. */
      readonly version: number;
    }
  | { readonly action: 'refuse'; readonly reply: Buffer; readonly reason: RefuseReason }
  /** Not a HELLO, or one too broken to answer (no readable sequence). */
  | { readonly action: 'ignore' };

function refuse(seq: number, reason: RefuseReason, now: number): HelloDecision {
  // Refusals go in clear: the device may hold a wrong key, and they carry nothing secret
  // (like the DC-09 NAK, SIA DC-09 §5.5.3.2, never encrypted, whose timestamp the transmitter adopts).
  return { action: 'refuse', reply: encodeRefuse({ seq, timestamp: now, reason }), reason };
}

export function answerHello(input: DecodedLinkMessage | LinkDecodeError, ctx: HelloContext): HelloDecision {
  if ('error' in input) {
    if (input.token !== 'VL-HELLO' || input.seq === undefined) return { action: 'ignore' };
    const reason: RefuseReason = input.error === 'no-key' || input.error === 'crypto' ? 'KEY' : 'FMT';
    return refuse(input.seq, reason, ctx.now);
  }
  if (input.type !== 'hello') return { action: 'ignore' };
  if (input.version < 1) return refuse(input.seq, 'VER', ctx.now);
  if (!input.encrypted && ctx.requireEncryption) return refuse(input.seq, 'ENC', ctx.now);
  if (input.encrypted) {
    // An encrypted HELLO is replayable by anyone who recorded it; the time window bounds that,
    // and the refusal's timestamp lets the device correct its clock and retry at once.
    const window = { windowPastS: ctx.windowPastS, windowFutureS: ctx.windowFutureS, acceptLocalTime: false };
    if (input.timestamp === null || !checkWindow(input.timestamp, ctx.now, window).ok) {
      return refuse(input.seq, 'TIME', ctx.now);
    }
  }
  const sessionKey = input.encrypted ? ctx.key : null;
  const version = Math.min(input.version, LINK_VERSION);
  const reply = encodeWelcome({ seq: input.seq, timestamp: ctx.now, version }, { key: sessionKey });
  return { action: 'welcome', reply, hello: input, sessionKey, version };
}
