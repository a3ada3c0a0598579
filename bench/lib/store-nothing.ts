/**
 * The reference the issue measures Vigil against (issue 9: "a receiver that parses and ACKs but
 * stores nothing"), built from Vigil's own codec so the comparison isolates what storing costs:
 * per TCP connection a Dc09Framer, per frame handleFrame (parse, decrypt, time test, decode, build
 * the ACK) and the reply written at once; per UDP datagram decodeDatagram + handleFrame + the reply.
 * No journal, no thread, no group commit, no supervision. Run as a child process, pinned like the
 * gateway (startStoreNothingChild), so bench/ingest.ts drives it with the same simulator.
 *
 *   node dist/bench/lib/store-nothing.js <tcpPort> <udpPort> <key>
 */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Dc09Framer, decodeDatagram } from '../../src/protocols/dc09/frame.js';
import { handleFrame, type HandlerContext } from '../../src/protocols/dc09/handler.js';
import { receiverPasswordKey } from '../../src/protocols/dc09/crypto.js';
import type { GatewayChild } from './gateway-child.js';
import { startReferenceChild } from './reference-child.js';

function serve(tcpPort: number, udpPort: number, password: string): void {
  const key = receiverPasswordKey(password);
  // The receivers' defaults (docs/settings.md): the time test on encrypted frames only.
  const context = (): HandlerContext => ({
    now: Date.now(),
    key,
    requireEncryption: false,
    checkPlainTimestamps: false,
    acceptLocalTime: false,
  });
  const tcp = createServer((socket) => {
    const framer = new Dc09Framer();
    socket.setNoDelay(true);
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      const ctx = context();
      for (const item of framer.push(chunk)) {
        if (item.kind !== 'frame') continue;
        const reply = handleFrame(item.body, ctx).reply;
        if (reply) socket.write(reply);
      }
    });
  });
  const udp = createSocket('udp4');
  udp.on('message', (datagram, peer) => {
    const item = decodeDatagram(datagram);
    if (item.kind !== 'frame') return;
    const reply = handleFrame(item.body, context()).reply;
    if (reply) udp.send(reply, peer.port, peer.address);
  });
  let pending = 2;
  const ready = (): void => {
    if (--pending === 0) process.stdout.write('ready\n');
  };
  tcp.listen(tcpPort, '127.0.0.1', ready);
  udp.bind(udpPort, '127.0.0.1', ready);
  process.on('SIGTERM', () => process.exit(0));
}

/**
 * The reference receiver in its own process (reference-child.ts), pinned to `cpu` when given. It
 * never flushes, but gets the comparison's `env` all the same (slowsync.ts flushEnv).
 */
export function startStoreNothingChild(
  tcpPort: number,
  udpPort: number,
  password: string,
  cpu: number | null,
  env: Readonly<Record<string, string>> = {},
): Promise<GatewayChild> {
  return startReferenceChild(
    'store-nothing',
    fileURLToPath(import.meta.url),
    [String(tcpPort), String(udpPort), password],
    cpu,
    () => undefined,
    env,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [tcpPort, udpPort, password] = process.argv.slice(2);
  if (!tcpPort || !udpPort || !password) throw new Error('usage: store-nothing.js <tcpPort> <udpPort> <key>');
  serve(Number(tcpPort), Number(udpPort), password);
}
