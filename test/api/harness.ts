/**
 * The management API over the REAL parts: a Store on a temp SQLite file, the real
 * SettingsService, real tokens and throttle. The only stand-ins are the live device links (the
 * device-link work) and the restart callback (the services group), both recorded.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { createApp } from '../../src/api/app.js';
import type { ApiDeps } from '../../src/api/deps.js';
import { LoginThrottle } from '../../src/auth/login-throttle.js';
import { listSerialPorts } from '../../hw/serial/index.js';
import { configuredSerialPorts } from '../../src/settings/serial-usage.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { TokenService, userSubject } from '../../src/auth/tokens.js';
import { ManualClock } from '../../src/core/clock.js';
import { HealthRegistry } from '../../src/core/health.js';
import { createLogger, type Logger } from '../../src/core/logger.js';
import { RegistryCommandPort, type DeviceLinkHandle } from '../../src/devices/registry-command-port.js';
import { defaultValidationEnv } from '../../src/settings/environment.js';
import { defaultSettings, type Settings } from '../../src/settings/schema.js';
import { SettingsService } from '../../src/settings/settings-service.js';
import { Store } from '../../src/store/store.js';
import { tempDir } from '../helpers/temp-dir.js';

export const SECRET = '0123456789abcdef'.repeat(4);
export const START = Date.UTC(2026, 0, 1, 12, 0, 0);
export const CHEAP = { N: 1024, r: 8, p: 1 };
export const TEXT = 'text/plain; charset=UTF-8';
export const JSON_TYPE = 'application/json';

export const ADMIN = { id: 1, login: 'admin', password: 'admin-pass-1' };
export const OPERATOR = { id: 2, login: 'operator', password: 'operator-pass' };
export const VIEWER = { id: 3, login: 'viewer', password: 'viewer-pass' };

export interface Harness {
  readonly app: ReturnType<typeof createApp>;
  readonly deps: ApiDeps;
  readonly clock: ManualClock;
  readonly store: Store;
  readonly settings: SettingsService;
  readonly health: HealthRegistry;
  readonly links: Map<number, DeviceLinkHandle>;
  readonly restarts: { count: number; fail: Error | null };
  /** Gateway stops asked for by POST /api/system/restart (the CLI's shutdown in the gateway). */
  readonly stops: { count: number };
  readonly logs: string[];
  readonly dbPath: string;
  /** The data dir holding dbPath: backups are made from it, restores are staged in it. */
  readonly dataDir: string;
  /** A login-style token for a user (scopes default to the user's scopes plus grants). */
  token(userId: number, scopes?: string[], minutes?: number): Promise<string>;
  close(): Promise<void>;
}

export async function createHarness(): Promise<Harness> {
  const dir = tempDir('vigil-api-');
  const dbPath = join(dir.path, 'vigil.db');
  const clock = new ManualClock(START);
  const logs: string[] = [];
  const logger: Logger = createLogger('test', (l) => logs.push(l), 'debug');
  const health = new HealthRegistry(() => clock.now());
  const store = new Store(dbPath, logger.child('store'), health, { clock });
  await store.start();
  const settings = new SettingsService({
    store: store,
    env: defaultValidationEnv({
      hash: (p) => hashPassword(p, CHEAP),
      checkDatabase: async () => null,
      isSerialDevice: async () => false,
    }),
    logger: logger.child('settings'),
  });
  await settings.start();
  const base = defaultSettings();
  const user = async (
    u: { id: number; login: string; password: string },
    scopes: string[],
    custom: number[] | null,
  ) => ({
    id: u.id,
    login: u.login,
    password_hash: await hashPassword(u.password, CHEAP),
    token_time: 60,
    scopes,
    visible_receivers: { all: custom === null, custom: custom ?? [] },
  });
  const initial = {
    ...base,
    api: { ...base.api, api_jwt_secret: SECRET },
    general: { ...base.general, instance_name: 'site-7' },
    // Receiver 1 (TCP) and 2 (UDP): the ids visible_receivers and the fixtures refer to.
    receivers: {
      ...base.receivers,
      tcp_receivers: [{ id: 1, name: 'DC-09 TCP', port: 10001 }],
      udp_receivers: [{ id: 2, name: 'DC-09 UDP', port: 10001 }],
    },
    users: [
      await user(ADMIN, ['settings', 'users', 'events', 'objects'], null),
      await user(OPERATOR, ['events', 'objects'], [1]),
      await user(VIEWER, ['events'], null),
    ],
  } as Settings;
  await settings.replaceForInit(initial);
  await store.write.grants.set(OPERATOR.id, ['device_control'], 'test');

  const links = new Map<number, DeviceLinkHandle>();
  const restarts = { count: 0, fail: null as Error | null };
  const stops = { count: 0 };
  const tokens = new TokenService({ secret: () => settings.current().api.api_jwt_secret, clock });
  const roots = serialRoots(dir.path);
  const deps: ApiDeps = {
    version: '9.9.9-test',
    startedAt: START - 3_600_500,
    clock,
    logger,
    health,
    settings,
    store,
    tokens,
    devices: new RegistryCommandPort({ objects: store.objects, links, logger, overrides: store.overrides }),
    deviceEnrolment: { store, clock, logger },
    services: {
      restart: async () => {
        restarts.count += 1;
        if (restarts.fail) throw restarts.fail;
      },
    },
    throttle: new LoginThrottle({ clock }),
    serialPorts: () => listSerialPorts(configuredSerialPorts(settings.current()), roots),
    system: {
      dataDir: dir.path,
      instanceId: () => store.meta.get('instance_id'),
      requestStop: () => {
        stops.count += 1;
      },
    },
  };
  const app = createApp(deps);
  return {
    app,
    deps,
    clock,
    store,
    settings,
    health,
    links,
    restarts,
    stops,
    logs,
    dbPath,
    dataDir: dir.path,
    async token(userId, scopes, minutes = 60) {
      const user = settings.current().users.find((u) => u.id === userId);
      const own = scopes ?? [...(user?.scopes ?? []), ...store.grants.get(userId)];
      return (
        await tokens.issueToken({
          sub: userSubject(userId),
          scopes: own,
          minutes,
          epoch: store.tokenEpochs.get(userId),
        })
      ).token;
    },
    async close() {
      await store.stop();
      dir.remove();
    },
  };
}

/** A directory laid out like /dev with one USB adapter (ttyUSB0) and its by-id link, for GET /api/serial-ports. */
export const USB_BY_ID = 'usb-FTDI_FT232R_USB_UART_A10K1234-if00-port0';

function serialRoots(base: string): { dev: string; sysTty: string } {
  const dev = join(base, 'dev');
  mkdirSync(join(dev, 'serial', 'by-id'), { recursive: true });
  writeFileSync(join(dev, 'ttyUSB0'), '');
  symlinkSync('../../ttyUSB0', join(dev, 'serial', 'by-id', USB_BY_ID));
  return { dev, sysTty: join(base, 'sys') };
}

/**
 * One device with a related object on each of receivers 1 (UID A1A1, OID 1111, related 7777) and 2 (B2B2,
 * 2222, related 8888), and account 3333 reported on both (C3C3 on 1, D4D4 on 2).
 */
export async function seedTwoReceivers(store: Harness['store'], at: number): Promise<void> {
  const visible = await store.write.objects.upsertMain({
    uid: 'A1A1',
    account: '1111',
    receiverId: 1,
    receiverKind: 'tcp',
    at,
  });
  await store.write.objects.upsertRelated(visible.id, '7777', { at });
  const hidden = await store.write.objects.upsertMain({
    uid: 'B2B2',
    account: '2222',
    receiverId: 2,
    receiverKind: 'udp',
    at,
  });
  await store.write.objects.upsertRelated(hidden.id, '8888', { at });
  await store.write.objects.upsertMain({ uid: 'C3C3', account: '3333', receiverId: 1, receiverKind: 'tcp', at });
  await store.write.objects.upsertMain({ uid: 'D4D4', account: '3333', receiverId: 2, receiverKind: 'udp', at });
}

export interface CallOptions {
  token?: string;
  /** A value to JSON.stringify, or a raw string sent as is. */
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  address?: string;
}

export function call(h: Harness, method: string, path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.Authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !headers['Content-Type']) headers['Content-Type'] = 'application/json';
  const env = { incoming: { socket: { remoteAddress: options.address ?? '192.0.2.10' } } };
  return Promise.resolve(h.app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) }, env));
}

/**
 * Asserts status, content type and the exact body bytes: a string is compared as is, anything
 * else as its JSON text (so the order of fields counts too).
 */
export async function expectResponse(
  res: Response,
  status: number,
  body: unknown,
  contentType = typeof body === 'string' ? TEXT : JSON_TYPE,
): Promise<void> {
  const text = await res.text();
  assert.is(res.status, status, `status (body: ${text})`);
  assert.is(res.headers.get('content-type'), contentType);
  assert.is(text, typeof body === 'string' ? body : JSON.stringify(body));
}
