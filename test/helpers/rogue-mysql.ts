/**
 * A hostile "MySQL server" on loopback, as a `settings` user would run at the sqlhost they chose
 * (issue #28.4): it greets with caching_sha2_password and no TLS, switches the client to
 * caching_sha2_password, asks for full authentication, hands out its own RSA key on request and
 * decrypts whatever the client encrypts with it. `recovered` is the password it got, if any.
 * Protocol: MySQL client/server protocol v10 (Initial Handshake, AuthSwitchRequest, AuthMoreData).
 */
import { constants, generateKeyPairSync, privateDecrypt, randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { LOOPBACK } from './net.js';

export interface RogueMysql {
  port: number;
  /** Every payload the client sent, in order. */
  readonly received: Buffer[];
  /** The password recovered from an RSA-encrypted answer, or null. */
  recovered(): string | null;
  /** True once the client asked for the server's public key. */
  keyRequested(): boolean;
  close(): Promise<void>;
}

// PROTOCOL_41 | LONG_PASSWORD | CONNECT_WITH_DB | TRANSACTIONS | SECURE_CONNECTION | PLUGIN_AUTH | PLUGIN_AUTH_LENENC (no SSL).
const CAPABILITIES = 0x200 | 0x1 | 0x8 | 0x2000 | 0x8000 | 0x80000 | 0x200000;
const PLUGIN = 'caching_sha2_password';

function packet(seq: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUIntLE(payload.length, 0, 3);
  header[3] = seq;
  return Buffer.concat([header, payload]);
}

function greeting(scramble: Buffer): Buffer {
  const fixed = Buffer.alloc(4 + 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10);
  let at = fixed.writeUInt32LE(7, 0);
  at += scramble.copy(fixed, at, 0, 8);
  at = fixed.writeUInt8(0, at);
  at = fixed.writeUInt16LE(CAPABILITIES & 0xffff, at);
  at = fixed.writeUInt8(0x21, at); // utf8_general_ci
  at = fixed.writeUInt16LE(0x0002, at); // autocommit
  at = fixed.writeUInt16LE(CAPABILITIES >>> 16, at);
  fixed.writeUInt8(21, at); // auth data length; ten reserved zero bytes follow
  return Buffer.concat([
    Buffer.from([0x0a]),
    Buffer.from('8.0.36-rogue\0'),
    fixed,
    scramble.subarray(8, 20),
    Buffer.from([0]),
    Buffer.from(`${PLUGIN}\0`),
  ]);
}

function xorRotating(data: Buffer, seed: Buffer): Buffer {
  return Buffer.from(data.map((byte, i) => byte ^ (seed[i % seed.length] as number)));
}

export async function startRogueMysql(): Promise<RogueMysql> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
  const received: Buffer[] = [];
  const sockets = new Set<Socket>();
  let recovered: string | null = null;
  let keyRequested = false;

  const serve = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const scramble = randomBytes(20);
    let pending = Buffer.alloc(0);
    let count = 0;
    const answer = (seq: number, payload: Buffer): void => void socket.write(packet(seq, payload));
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4) {
        const length = pending.readUIntLE(0, 3);
        if (pending.length < 4 + length) return;
        const seq = pending[3] as number;
        const payload = pending.subarray(4, 4 + length);
        pending = pending.subarray(4 + length);
        received.push(Buffer.from(payload));
        count++;
        if (count === 1) {
          // Whatever the client chose in its handshake answer: switch it to caching_sha2_password.
          answer(seq + 1, Buffer.concat([Buffer.from([0xfe]), Buffer.from(`${PLUGIN}\0`), scramble, Buffer.from([0])]));
        } else if (count === 2) {
          answer(seq + 1, Buffer.from([0x01, 0x04])); // perform full authentication
        } else if (payload.length === 1 && payload[0] === 0x02) {
          keyRequested = true;
          answer(seq + 1, Buffer.concat([Buffer.from([0x01]), Buffer.from(publicPem)]));
        } else {
          try {
            const plain = privateDecrypt(
              { key: privateKey, oaepHash: 'sha1', padding: constants.RSA_PKCS1_OAEP_PADDING },
              payload,
            );
            recovered = xorRotating(plain, scramble).toString('utf8').replace(/\0$/, '');
          } catch {
            recovered = recovered ?? payload.toString('utf8').replace(/\0$/, ''); // a password sent in clear
          }
          socket.destroy();
        }
      }
    });
    answer(0, greeting(scramble));
  };

  const server: Server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    received,
    recovered: () => recovered,
    keyRequested: () => keyRequested,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
