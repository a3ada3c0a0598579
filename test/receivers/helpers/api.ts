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
import { decodeLinkBody, encodeHello, encodeResponse } from '../../../src/protocols/device-link/codec.js';
import type { CommandMessage, ResponseStatus } from '../../../src/protocols/device-link/messages.js';
import { TcpDevice } from './devices.js';
import type { Rig } from './rig.js';

const SECRET = 'abcdef0123456789'.repeat(4);

export interface Api {
  post(path: '/api/control-device' | '/api/config-device', body: unknown): Promise<{ status: number; body: unknown }>;
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
    devices: new RegistryCommandPort({ objects: rig.store.objects, links: rig.runtime.links, logger: rig.logger, overrides: rig.store.overrides }),
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
  readonly key?: Buffer | null;
}

/** Connects, says VL-HELLO and waits for the VL-WELCOME. */
export async function linkDevice(port: number, o: LinkDeviceOptions): Promise<TcpDevice> {
  const device = await TcpDevice.connect(port);
  const key = o.key ?? null;
  device.send(encodeHello(
    { seq: 1, timestamp: key ? Date.now() : null, version: 1, uid: o.uid, ...(o.account ? { account: o.account } : {}), ...(o.hwId ? { hwId: o.hwId } : {}) },
    { key },
  ));
  const welcome = decodeLinkBody(await device.next(), key);
  assert.ok(!('error' in welcome) && welcome.type === 'welcome', JSON.stringify(welcome));
  return device;
}

/** The next VL-CMD / VL-CFG the device receives. */
export async function nextCommand(device: TcpDevice, key: Buffer | null = null, timeoutMs = 3000): Promise<CommandMessage & { encrypted: boolean }> {
  const message = decodeLinkBody(await device.next(timeoutMs), key);
  if ('error' in message || message.type !== 'command') throw new Error(`expected a command, got ${JSON.stringify(message)}`);
  return message;
}

/** Answers request `seq` with one VL-RSP per packet (or a single non-OK status). */
export function answer(device: TcpDevice, seq: number, packets: Buffer[], key: Buffer | null = null, status: ResponseStatus = 'OK'): void {
  const list = packets.length === 0 ? [Buffer.alloc(0)] : packets;
  list.forEach((data, i) => {
    device.send(encodeResponse({ seq, timestamp: key ? Date.now() : null, packetNumber: i + 1, packetCount: list.length, status, data }, { key }));
  });
}
