/**
 * The management API (createApp, `app.request`) wired to a rig's REAL device links, and a TCP
 * test device that speaks the device link (docs/device-link.md).
 */
import * as assert from 'uvu/assert';
import { createApp } from '../../../src/api/app.js';
import { LoginThrottle } from '../../../src/auth/login-throttle.js';
import { INSTALLER_SUBJECT, TokenService } from '../../../src/auth/tokens.js';
import { systemClock } from '../../../src/core/clock.js';
import { RegistryCommandPort } from '../../../src/devices/registry-command-port.js';
import { decodeLinkBody, encodeResponse, type SessionKey } from '../../../src/protocols/device-link/codec.js';
import type {
  CommandMessage,
  DecodedLinkMessage,
  LinkDecodeError,
  ResponseStatus,
} from '../../../src/protocols/device-link/messages.js';
import { DeviceHandshake, type DeviceKeyring } from '../../../src/sim/link-handshake.js';
import { TcpDevice } from './devices.js';
import type { Rig } from './rig.js';

const SECRET = 'abcdef0123456789'.repeat(4);

export interface Api {
  post(
    path: '/api/control-device' | '/api/config-device' | '/api/device-enrolment',
    body: unknown,
  ): Promise<{ status: number; body: unknown }>;
}

export async function apiFor(rig: Rig): Promise<Api> {
  const tokens = new TokenService({ secret: () => SECRET, clock: systemClock });
  const app = createApp({
    version: 'test',
    startedAt: Date.now(),
    clock: systemClock,
    logger: rig.logger.child('api'),
    health: rig.health,
    settings: {
      current: () => ({ api: { api_jwt_secret: SECRET }, general: { instance_name: 'rx-test' }, users: [] }),
      update: async () => ({ ok: false, errors: ['read-only in this test'] }),
      publicView: () => ({}),
    },
    store: rig.store,
    tokens,
    devices: new RegistryCommandPort({
      objects: rig.store.objects,
      links: rig.runtime.links,
      logger: rig.logger,
      overrides: rig.store.overrides,
    }),
    deviceEnrolment: { store: rig.store, clock: systemClock, logger: rig.logger },
    services: { restart: async () => undefined },
    throttle: new LoginThrottle({ clock: systemClock }),
  });
  const { token } = await tokens.issueToken({ sub: INSTALLER_SUBJECT, scopes: ['device_control'], minutes: 10 });
  return {
    async post(path, body) {
      const res = await app.request(path, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
    },
  };
}

export interface LinkDeviceOptions {
  readonly uid: string;
  readonly account?: string;
  readonly hwId?: string;
  /** The receiver's DC-09 key: the HELLO goes encrypted with it. */
  readonly key?: Buffer | null;
  /** The device keys the device holds; the test files' shared keyring by default (enrolment fills it). */
  readonly keyring?: DeviceKeyring;
}

/** The keys the test devices of this process enrolled, by UID: a device that reconnects proves its key. */
export const TEST_KEYRING: DeviceKeyring = new Map();
/** Each linked test device's session key (its commands and replies are sealed with it). */
const sessions = new WeakMap<TcpDevice, SessionKey>();

/**
 * Runs the HELLO handshake of docs/device-link.md §4.1 on `device` (VL-HELLO, VL-CHAL, VL-PROOF) and
 * returns the gateway's last answer: the VL-WELCOME (checked) or a VL-REFUSE.
 */
export async function sayHello(device: TcpDevice, o: LinkDeviceOptions): Promise<DecodedLinkMessage | LinkDecodeError> {
  const key = o.key ?? null;
  const handshake = new DeviceHandshake(
    { seq: 1, uid: o.uid, account: o.account ?? '', hwId: o.hwId ?? '', firmware: '' },
    o.keyring ?? TEST_KEYRING,
  );
  const hello = handshake.hello(Date.now(), key);
  device.send(hello);
  const challenge = handshake.decode(await device.next(), key);
  if ('error' in challenge || challenge.type !== 'challenge') return challenge;
  const proof = handshake.proof(challenge, Date.now());
  if (!proof) return challenge;
  device.send(proof);
  const answer = handshake.decode(await device.next(), key);
  if (!('error' in answer) && answer.type === 'welcome') {
    assert.ok(handshake.welcomed(answer), 'the WELCOME proves the gateway holds the device key');
    sessions.set(device, handshake.sessionKey!);
  }
  return answer;
}

/** Connects, runs the HELLO handshake and waits for the VL-WELCOME. */
export async function linkDevice(port: number, o: LinkDeviceOptions): Promise<TcpDevice> {
  const device = await TcpDevice.connect(port);
  const welcome = await sayHello(device, o);
  assert.ok(!('error' in welcome) && welcome.type === 'welcome', JSON.stringify(welcome));
  return device;
}

/** The session key of a linked test device. */
export function sessionOf(device: TcpDevice): SessionKey {
  const session = sessions.get(device);
  if (!session) throw new Error('device not linked');
  return session;
}

/** The next VL-CMD / VL-CFG the device receives (sealed with its session key). */
export async function nextCommand(
  device: TcpDevice,
  _receiverKey: Buffer | null = null,
  timeoutMs = 3000,
): Promise<CommandMessage & { encrypted: boolean }> {
  const message = decodeLinkBody(await device.next(timeoutMs), sessionOf(device));
  if ('error' in message || message.type !== 'command')
    throw new Error(`expected a command, got ${JSON.stringify(message)}`);
  return message;
}

/** Answers request `seq` with one VL-RSP per packet (or a single non-OK status), sealed with the session key. */
export function answer(
  device: TcpDevice,
  seq: number,
  packets: Buffer[],
  _receiverKey: Buffer | null = null,
  status: ResponseStatus = 'OK',
): void {
  const list = packets.length === 0 ? [Buffer.alloc(0)] : packets;
  const key = sessionOf(device);
  list.forEach((data, i) => {
    device.send(
      encodeResponse(
        { seq, timestamp: Date.now(), packetNumber: i + 1, packetCount: list.length, status, data },
        { key },
      ),
    );
  });
}
