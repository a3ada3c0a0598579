/**
 * The device link end to end over a real loopback TCP connection: a device sends an encrypted
 * HELLO and proves its key, the gateway side (framer -> decoder -> answerHello -> answerProof ->
 * LinkCommander) sends commands sealed with the session key,
 * the device answers in packets, then hangs up. The gateway glue here stands in for the TCP
 * receiver, which is not part of this module.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { systemClock } from '../../../src/core/clock.js';
import type { DeviceCommandRequest } from '../../../src/core/device-commands.js';
import { Dc09Framer } from '../../../src/protocols/dc09/frame.js';
import {
  decodeLinkBody,
  encodeResponse,
  isLinkBody,
  type SessionKey,
} from '../../../src/protocols/device-link/codec.js';
import { systemTimers } from '../../../src/protocols/device-link/command-queue.js';
import { answerHello, answerProof, type PendingHello } from '../../../src/protocols/device-link/hello-handler.js';
import { DeviceHandshake } from '../../../src/sim/link-handshake.js';
import { LinkCommander } from '../../../src/protocols/device-link/link-commander.js';
import { LOOPBACK, waitFor } from '../../helpers/net.js';
import { EXAMPLE_KEY } from './examples.js';

const UID = '0011223344556677';
const DEVICE_KEY = Buffer.alloc(32, 0x5a);

function startGateway(onLink: (commander: LinkCommander) => void): Promise<Server> {
  const server = createServer((socket) => {
    const framer = new Dc09Framer();
    let commander: LinkCommander | null = null;
    let pending: PendingHello | null = null;
    let session: SessionKey | null = null;
    socket.on('data', (chunk) => {
      for (const item of framer.push(chunk)) {
        if (item.kind !== 'frame' || !isLinkBody(item.body)) continue;
        const message = decodeLinkBody(item.body, session ?? EXAMPLE_KEY);
        if (!pending) {
          const decision = answerHello(message, {
            now: systemClock.now(),
            key: EXAMPLE_KEY,
            requireEncryption: true,
            windowPastS: 40,
            windowFutureS: 20,
            deviceKey: () => ({ key: DEVICE_KEY, mayEnrol: false }),
          });
          if (decision.action === 'ignore') continue;
          socket.write(decision.reply);
          if (decision.action === 'challenge') pending = decision.pending;
        } else if (!commander) {
          const decision = answerProof(message, pending, systemClock.now());
          if (decision.action === 'ignore') continue;
          socket.write(decision.reply);
          if (decision.action !== 'welcome') continue;
          session = decision.sessionKey;
          commander = new LinkCommander({
            send: (frame) => {
              if (socket.destroyed) return false;
              socket.write(frame);
              return true;
            },
            key: decision.sessionKey,
            identity: () => ({ uid: decision.hello.uid }),
            clock: systemClock,
            timers: systemTimers,
            timeoutMs: 1000,
          });
          onLink(commander);
        } else if (!('error' in message)) {
          commander.handleMessage(message);
        }
      }
    });
    socket.on('close', () => commander?.close());
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) => server.listen(0, LOOPBACK, () => resolve(server)));
}

/** A device that answers every VL-CMD with the command bytes back, split in one-byte packets. */
function startDevice(port: number, seen: string[]): Promise<Socket> {
  const socket = createConnection(port, LOOPBACK);
  const framer = new Dc09Framer();
  const handshake = new DeviceHandshake(
    { seq: 1, uid: UID, account: '1234', hwId: 'T-1', firmware: '1' },
    new Map([[UID, DEVICE_KEY]]),
  );
  socket.on('data', (chunk) => {
    for (const item of framer.push(chunk)) {
      if (item.kind !== 'frame') continue;
      const message = handshake.decode(item.body, EXAMPLE_KEY);
      if ('error' in message) continue;
      seen.push(message.type);
      if (message.type === 'challenge') socket.write(handshake.proof(message, systemClock.now())!);
      if (message.type === 'welcome' && !handshake.welcomed(message)) seen.push('bad-welcome');
      if (message.type !== 'command' || message.data[0] === 0xee) continue; // 0xEE: stay silent
      const count = message.data.length;
      for (let i = 0; i < count; i++) {
        socket.write(
          encodeResponse(
            {
              seq: message.seq,
              timestamp: systemClock.now(),
              packetNumber: i + 1,
              packetCount: count,
              status: 'OK',
              data: message.data.subarray(i, i + 1),
            },
            { key: handshake.sessionKey },
          ),
        );
      }
    }
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.write(handshake.hello(systemClock.now(), EXAMPLE_KEY));
      resolve(socket);
    });
  });
}

const REQUEST: DeviceCommandRequest = {
  kind: 'control',
  partialUid: '6677',
  data: Buffer.from('0A0B0C', 'hex'),
  responseRequired: true,
  omitMasterPassword: true,
  visibleReceivers: null,
};

test('encrypted link over TCP: welcome, a three-packet reply, a silent device, then a disconnect', async () => {
  let commander: LinkCommander | null = null;
  const server = await startGateway((c) => (commander = c));
  const port = (server.address() as { port: number }).port;
  const seen: string[] = [];
  const device = await startDevice(port, seen);
  try {
    await waitFor(() => commander !== null && seen.includes('welcome'), 3000);
    const link = commander as unknown as LinkCommander;
    assert.equal(await link.execute(REQUEST), {
      ok: true,
      device: { uid: UID },
      packets: [Buffer.from([0x0a]), Buffer.from([0x0b]), Buffer.from([0x0c])],
    });
    const silent = await link.execute({ ...REQUEST, data: Buffer.from([0xee]) });
    assert.is(silent.ok === false && silent.error, 'NO_RESPONSE');
    const pending = link.execute({ ...REQUEST, data: Buffer.from([0xee]) });
    device.destroy();
    assert.equal(await pending, { ok: false, error: 'NO_CONNECTION', device: { uid: UID } });
  } finally {
    device.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

test.run();
