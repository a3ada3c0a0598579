/**
 * The simulator's options, declared once: the input shape (everything optional except the port),
 * the defaults, the limits and the resolved shape the fleet runs with. Both the library callers
 * (tests, benches) and `vigil sim` (sim-args.ts) go through resolveSimOptions, so a bad value is
 * refused the same way everywhere (VigilError INVALID_SETTINGS, the field named in the message).
 */
import { VigilError } from '../core/errors.js';
import { resolveSimKey } from './identity.js';

export type SimTransport = 'tcp' | 'udp';
export type SimToken = 'SIA-DCS' | 'ADM-CID';
/** The alarm / restore pairs a device reports (event-data.ts): burglary zones, or its mains supply. */
export type SimCodes = 'burglary' | 'mains';
/** What a device does wrong when it answers VL-CMD / VL-CFG (docs/simulator.md §Faults). */
export type LinkFault = 'none' | 'wrong-number' | 'wrong-count' | 'silence' | 'mpass' | 'bad' | 'rej';
export const LINK_FAULTS: readonly LinkFault[] = [
  'none',
  'wrong-number',
  'wrong-count',
  'silence',
  'mpass',
  'bad',
  'rej',
];

/** Bounds: every loop of the simulator is bounded by these counts and times. */
export const SIM_LIMITS = {
  maxTcpDevices: 20_000,
  /** One UDP socket per device; more would mostly measure the kernel's socket table. */
  maxUdpDevices: 5_000,
  maxDurationMs: 7 * 24 * 3600 * 1000,
  maxEvents: 100_000_000,
  maxWindow: 64,
  maxRetries: 20,
  maxRatePerDevice: 10_000,
  maxQueuePerDevice: 10_000,
  maxReplyPackets: 100,
  maxReplyDelayMs: 60_000,
} as const;

export interface LinkBehaviour {
  /** Send VL-HELLO on every TCP connect (docs/device-link.md §4.1). */
  readonly hello: boolean;
  readonly hwId: string;
  readonly firmware: string;
  /** Packets in a VL-RSP reply to a command that wants data. */
  readonly replyPackets: number;
  /** Data of every reply packet; null echoes the command's data. */
  readonly replyData: Buffer | null;
  readonly replyDelayMs: number;
  /** When set, a command must carry this code (auth M) or the omit flag (auth O), else S=MPASS. */
  readonly masterPassword: string | null;
  readonly fault: LinkFault;
}

export interface SimOptions {
  readonly host: string;
  readonly port: number;
  readonly transport: SimTransport;
  readonly devices: number;
  /** Hex; device i uses base + i written with at least as many digits (leading zeros kept). */
  readonly accountBase: string;
  readonly uidBase: string;
  readonly token: SimToken;
  readonly codes: SimCodes;
  /**
   * A mains-failure storm (docs/simulator.md §Storm): when > 0, each device sends ONE alarm as soon as
   * it starts (it goes out once its connection is up) and its restore this many ms later, and no
   * other events; pacing and saturation are off. 0: off.
   */
  readonly restoreAfterMs: number;
  /** Events per second per device (paced); 0 = none unless saturate. */
  readonly ratePerDevice: number;
  /** Send the next event as soon as the window has room (throughput runs). */
  readonly saturate: boolean;
  /** Messages a device keeps unacknowledged at once; real panels use 1. */
  readonly window: number;
  /** NULL link test period per device; 0 = none. */
  readonly linkTestIntervalMs: number;
  readonly key: Buffer | null;
  readonly receiver: string | null;
  readonly line: string | null;
  readonly timestamps: boolean;
  /** The device clocks' error, to provoke the receiver's time test (NAK). */
  readonly clockSkewMs: number;
  readonly durationMs: number;
  /** Total events over the fleet; null = bounded by the duration only. */
  readonly maxEvents: number | null;
  readonly ackTimeoutMs: number;
  readonly maxRetries: number;
  /** After the run: how long outstanding messages may still be answered. */
  readonly drainMs: number;
  /** Devices started per second; 0 = all at once. */
  readonly connectRate: number;
  readonly reconnectInitialMs: number;
  readonly reconnectMaxMs: number;
  readonly maxReconnects: number;
  /** Source addresses, used round robin (many connections without running out of ports). */
  readonly localAddresses: readonly string[];
  readonly link: LinkBehaviour;
  /** JSON file of device-link keys by UID, read at start and rewritten at the end (docs/simulator.md §Device keys). */
  readonly deviceKeysFile: string | null;
}

export interface SimOptionsInput {
  host?: string;
  port: number;
  transport?: SimTransport;
  devices?: number;
  accountBase?: string;
  uidBase?: string;
  token?: SimToken;
  codes?: SimCodes;
  restoreAfterMs?: number;
  ratePerDevice?: number;
  /** Fleet-wide events per second, split evenly over the devices (instead of ratePerDevice). */
  totalRate?: number;
  saturate?: boolean;
  window?: number;
  linkTestIntervalMs?: number;
  /** 16/24/32 ASCII or 32/48/64 hex characters, or a 6-character receiver password. */
  key?: string | null;
  receiver?: string | null;
  line?: string | null;
  timestamps?: boolean;
  clockSkewMs?: number;
  durationMs?: number;
  maxEvents?: number | null;
  ackTimeoutMs?: number;
  maxRetries?: number;
  drainMs?: number;
  connectRate?: number;
  reconnectInitialMs?: number;
  reconnectMaxMs?: number;
  maxReconnects?: number;
  localAddresses?: readonly string[];
  link?: LinkBehaviourInput;
  deviceKeysFile?: string | null;
}

export interface LinkBehaviourInput {
  hello?: boolean;
  hwId?: string;
  firmware?: string;
  replyPackets?: number;
  /** Hex; null or absent echoes the command's data. */
  replyData?: string | null;
  replyDelayMs?: number;
  masterPassword?: string | null;
  fault?: LinkFault;
}

export const SIM_DEFAULTS = {
  host: '127.0.0.1',
  transport: 'tcp' as SimTransport,
  devices: 1,
  accountBase: '001000',
  uidBase: 'A10000000000',
  token: 'SIA-DCS' as SimToken,
  ratePerDevice: 1,
  window: 1,
  linkTestIntervalMs: 0,
  timestamps: true,
  durationMs: 10_000,
  ackTimeoutMs: 5_000,
  maxRetries: 3,
  drainMs: 5_000,
  connectRate: 2_000,
  reconnectInitialMs: 200,
  reconnectMaxMs: 10_000,
  maxReconnects: 100,
  hwId: 'SIM-1',
  firmware: '1.0.0',
  replyPackets: 1,
  replyDelayMs: 0,
} as const;

function bad(field: string, rule: string): never {
  throw new VigilError('INVALID_SETTINGS', `${field}: ${rule}`);
}

function int(field: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) bad(field, `must be an integer ${min}..${max}`);
  return value;
}

function num(field: string, value: number, min: number, max: number): number {
  if (!Number.isFinite(value) || value < min || value > max) bad(field, `must be a number ${min}..${max}`);
  return value;
}

function hexText(field: string, value: string, min: number, max: number): string {
  if (!new RegExp(`^[0-9A-Fa-f]{${min},${max}}$`).test(value)) bad(field, `must be ${min}..${max} hex digits`);
  return value.toUpperCase();
}

const LINK_TEXT_RE = /^[0-9A-Za-z._:+/-]{1,32}$/;

function resolveLink(input: SimOptionsInput['link'] = {}): LinkBehaviour {
  const hwId = input.hwId ?? SIM_DEFAULTS.hwId;
  const firmware = input.firmware ?? SIM_DEFAULTS.firmware;
  if (!LINK_TEXT_RE.test(hwId)) bad('hw_id', 'must be 1..32 of [0-9A-Za-z._:+/-]');
  if (!LINK_TEXT_RE.test(firmware)) bad('firmware', 'must be 1..32 of [0-9A-Za-z._:+/-]');
  const data = input.replyData ?? null;
  if (data !== null && (data.length % 2 !== 0 || !/^[0-9A-Fa-f]*$/.test(data) || data.length > 1800)) {
    bad('reply_data', 'must be even-length hex of at most 900 bytes');
  }
  const fault = input.fault ?? 'none';
  if (!LINK_FAULTS.includes(fault)) bad('fault', `must be one of ${LINK_FAULTS.join(', ')}`);
  const password = input.masterPassword ?? null;
  if (password !== null && (password === '' || Buffer.byteLength(password) > 64))
    bad('master_password', 'must be 1..64 bytes');
  return {
    hello: input.hello ?? true,
    hwId,
    firmware,
    replyPackets: int('reply_packets', input.replyPackets ?? SIM_DEFAULTS.replyPackets, 1, SIM_LIMITS.maxReplyPackets),
    replyData: data === null ? null : Buffer.from(data, 'hex'),
    replyDelayMs: int('reply_delay_ms', input.replyDelayMs ?? SIM_DEFAULTS.replyDelayMs, 0, SIM_LIMITS.maxReplyDelayMs),
    masterPassword: password,
    fault,
  };
}

export function resolveSimOptions(input: SimOptionsInput): SimOptions {
  const transport = input.transport ?? SIM_DEFAULTS.transport;
  if (transport !== 'tcp' && transport !== 'udp') bad('transport', 'must be tcp or udp');
  const maxDevices = transport === 'tcp' ? SIM_LIMITS.maxTcpDevices : SIM_LIMITS.maxUdpDevices;
  const devices = int('devices', input.devices ?? SIM_DEFAULTS.devices, 1, maxDevices);
  const token = input.token ?? SIM_DEFAULTS.token;
  if (token !== 'SIA-DCS' && token !== 'ADM-CID') bad('token', 'must be SIA-DCS or ADM-CID');
  const host = input.host ?? SIM_DEFAULTS.host;
  if (host === '') bad('host', 'must not be empty');
  if (input.ratePerDevice !== undefined && input.totalRate !== undefined)
    bad('rate', 'give a per-device rate or a total rate, not both');
  const rate =
    input.totalRate !== undefined
      ? num('total_rate', input.totalRate, 0, SIM_LIMITS.maxRatePerDevice * devices) / devices
      : num('rate', input.ratePerDevice ?? SIM_DEFAULTS.ratePerDevice, 0, SIM_LIMITS.maxRatePerDevice);
  const saturate = input.saturate ?? false;
  const codes = input.codes ?? 'burglary';
  if (codes !== 'burglary' && codes !== 'mains') bad('codes', 'must be burglary or mains');
  const restoreAfterMs = int('restore_after_ms', input.restoreAfterMs ?? 0, 0, 24 * 3600 * 1000);
  if (restoreAfterMs > 0 && (saturate || input.ratePerDevice !== undefined || input.totalRate !== undefined))
    bad('restore_after_ms', 'a storm sends one alarm and its restore per device: no rate, no saturation');
  const accountBase = hexText('account_base', input.accountBase ?? SIM_DEFAULTS.accountBase, 3, 16);
  const uidBase = hexText('uid_base', input.uidBase ?? SIM_DEFAULTS.uidBase, 6, 32);
  // The last device's account and UID must still fit their fields.
  if ((BigInt(`0x${accountBase}`) + BigInt(devices - 1)).toString(16).length > 16)
    bad('account_base', 'too large for that many devices');
  if ((BigInt(`0x${uidBase}`) + BigInt(devices - 1)).toString(16).length > 32)
    bad('uid_base', 'too large for that many devices');
  const maxEvents = input.maxEvents ?? null;
  const reconnectInitialMs = int(
    'reconnect_initial_ms',
    input.reconnectInitialMs ?? SIM_DEFAULTS.reconnectInitialMs,
    1,
    60_000,
  );
  const localAddresses = input.localAddresses ?? [];
  return {
    host,
    port: int('port', input.port, 1, 65535),
    transport,
    devices,
    accountBase,
    uidBase,
    token,
    codes,
    restoreAfterMs,
    ratePerDevice: saturate || restoreAfterMs > 0 ? 0 : rate,
    saturate,
    window: int('window', input.window ?? SIM_DEFAULTS.window, 1, SIM_LIMITS.maxWindow),
    linkTestIntervalMs: int(
      'link_test_ms',
      input.linkTestIntervalMs ?? SIM_DEFAULTS.linkTestIntervalMs,
      0,
      24 * 3600 * 1000,
    ),
    key: input.key ? resolveSimKey(input.key) : null,
    receiver: input.receiver ? hexText('receiver', input.receiver, 1, 6) : null,
    line: input.line ? hexText('line', input.line, 1, 6) : null,
    timestamps: input.timestamps ?? SIM_DEFAULTS.timestamps,
    clockSkewMs: int('clock_skew_ms', input.clockSkewMs ?? 0, -86_400_000, 86_400_000),
    durationMs: int('duration_ms', input.durationMs ?? SIM_DEFAULTS.durationMs, 1, SIM_LIMITS.maxDurationMs),
    maxEvents: maxEvents === null ? null : int('events', maxEvents, 0, SIM_LIMITS.maxEvents),
    ackTimeoutMs: int('ack_timeout_ms', input.ackTimeoutMs ?? SIM_DEFAULTS.ackTimeoutMs, 10, 300_000),
    maxRetries: int('retries', input.maxRetries ?? SIM_DEFAULTS.maxRetries, 0, SIM_LIMITS.maxRetries),
    drainMs: int('drain_ms', input.drainMs ?? SIM_DEFAULTS.drainMs, 0, 300_000),
    connectRate: int('connect_rate', input.connectRate ?? SIM_DEFAULTS.connectRate, 0, 1_000_000),
    reconnectInitialMs,
    reconnectMaxMs: int(
      'reconnect_max_ms',
      input.reconnectMaxMs ?? SIM_DEFAULTS.reconnectMaxMs,
      reconnectInitialMs,
      600_000,
    ),
    maxReconnects: int('max_reconnects', input.maxReconnects ?? SIM_DEFAULTS.maxReconnects, 0, 1_000_000),
    localAddresses: localAddresses.map((a) => (a === '' ? bad('local_address', 'must not be empty') : a)),
    link: resolveLink(input.link),
    deviceKeysFile: input.deviceKeysFile ? input.deviceKeysFile : null,
  };
}
