// The part of unix-dgram (bnoordhuis/node-unix-dgram) Vigil uses: an AF_UNIX SOCK_DGRAM socket.
declare module 'unix-dgram' {
  import type { EventEmitter } from 'node:events';

  export interface UnixDgramSocket extends EventEmitter {
    bind(path: string): void;
    /** sendto(2); the callback gets an error for a failed send or `congestion` (EAGAIN). */
    send(buf: Buffer, offset: number, length: number, path: string, callback?: (err?: Error) => void): void;
    close(): void;
  }

  export function createSocket(type: 'unix_dgram', listener?: (msg: Buffer) => void): UnixDgramSocket;
}
