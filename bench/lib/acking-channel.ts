import type { StreamChannel } from '../../src/receivers/frame-channel.js';

/** One pending ACK per device: the bench sets a device's slot before it hands the device's frame over. */
export type PendingAcks = Array<(() => void) | undefined>;

/**
 * A device's TCP stream, with session rows, for benches that drive `FrameSession` without sockets: the
 * session's write is the device's ACK, so it calls and clears the device's slot in `pending`.
 */
export function ackingChannel(remoteAddress: string, pending: PendingAcks, device: number): StreamChannel {
  return {
    framing: 'stream',
    transport: 'tcp',
    remoteAddress,
    sessionRows: true,
    write: () => {
      const done = pending[device];
      pending[device] = undefined;
      done?.();
      return true;
    },
    pause: () => undefined,
    resume: () => undefined,
  };
}
