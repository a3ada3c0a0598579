/**
 * Receiver lists. The contract defines tcp_receivers and udp_receivers (id, name, port,
 * encryption_password); the other fields and the COM and modem lists are Vigil's additions,
 * each with a default (docs/settings.md §receivers).
 */
import * as v from 'valibot';
import { DEFAULT_WINDOW_FUTURE_S, DEFAULT_WINDOW_PAST_S } from '../protocols/dc09/timestamp.js';
import { bool, id, int, ipAddress, list, nonEmpty, obj, oneOf, port, receiverPassword, str } from './fields.js';

export const LINK_ENROLMENT_MODES = ['open', 'closed'] as const;

export const BAUD_RATES = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200] as const;

const simPin = v.pipe(v.string('must be a string'), v.regex(/^\d{4,8}$/, 'must be 4 to 8 digits'));

// Absent: the receiver accepts unencrypted messages only (and encrypted ones are NAKed).
const encryptionPassword = v.optional(receiverPassword);

/** The DC-09 rules of a receiver besides its password (IP receivers, and COM receivers speaking SIA-DC09). */
const dc09RuleEntries = {
  require_encryption: v.optional(bool, false),
  // DC-09 §5.5.1.7: a timestamped message outside [-past, +future] of receiver time is NAKed.
  time_window_past_s: v.optional(int(0, 3600), DEFAULT_WINDOW_PAST_S),
  time_window_future_s: v.optional(int(0, 3600), DEFAULT_WINDOW_FUTURE_S),
  check_plain_timestamps: v.optional(bool, false),
  accept_local_time: v.optional(bool, false),
  // Deviations real panels show (docs/dc09.md "Tolerances"): accepted by default where the meaning is unambiguous.
  tolerate_binary_crc: v.optional(bool, true),
  tolerate_cr_counted: v.optional(bool, true),
  tolerate_trailing_bytes: v.optional(bool, true),
  tolerate_empty_line: v.optional(bool, true),
  // Off by default: the outputs carry accounts as hex digits (MLR2, Contact ID) and cannot forward letters.
  tolerate_text_account: v.optional(bool, false),
};

/** The fields every SIA DC-09 listener has (TCP and UDP). */
const ipReceiverEntries = {
  id,
  name: nonEmpty,
  port,
  encryption_password: encryptionPassword,
  bind_address: v.optional(ipAddress, '0.0.0.0'),
  ...dc09RuleEntries,
  // The TCP device link (UDP receivers ignore it) (docs/device-link.md §4.4): `open` (also when absent) lets a UID the gateway has never
  // seen enrol with its first HELLO; `closed` only after an installer opened enrolment for it. Known UIDs
  // never enrol on their own. No stored default: items saved before the field existed stay as they are.
  link_enrolment: v.optional(oneOf(LINK_ENROLMENT_MODES)),
};

/**
 * Per-source limits (docs/receivers.md §Per-source limits); a source is an IPv4
 * address or an IPv6 /64. Generous by default: panels behind one carrier NAT share an address.
 */
export const SOURCE_LIMIT_DEFAULTS = Object.freeze({
  max_connections_per_source: 256,
  max_accepts_per_source_per_min: 600,
  first_frame_timeout_s: 30,
  max_datagrams_per_source_per_s: 500,
});

/** One SIA DC-09 TCP listener. */
export const tcpReceiverSchema = obj({
  ...ipReceiverEntries,
  max_connections_per_source: v.optional(int(1, 20_000), SOURCE_LIMIT_DEFAULTS.max_connections_per_source),
  max_accepts_per_source_per_min: v.optional(int(1, 100_000), SOURCE_LIMIT_DEFAULTS.max_accepts_per_source_per_min),
  // A connection that has not completed a valid frame is closed after this long without a byte.
  first_frame_timeout_s: v.optional(int(1, 600), SOURCE_LIMIT_DEFAULTS.first_frame_timeout_s),
});

/** One SIA DC-09 UDP listener. */
export const udpReceiverSchema = obj({
  ...ipReceiverEntries,
  max_datagrams_per_source_per_s: v.optional(int(1, 100_000), SOURCE_LIMIT_DEFAULTS.max_datagrams_per_source_per_s),
});

/** The fields TCP and UDP listeners share. */
export const ipReceiverSchema = obj(ipReceiverEntries);

export const DATA_BITS = [7, 8] as const;
export const PARITIES = ['none', 'even', 'odd'] as const;
export const STOP_BITS = [1, 2] as const;
export const FLOW_CONTROLS = ['none', 'rts-cts'] as const;
export const COM_PROTOCOLS = ['SIA-DC09', 'MLR2'] as const;

/** How a serial device is opened (docs/serial.md §Line settings): 9600 8N1 without flow control, what legacy receivers ship with. */
export const serialLineEntries = {
  baud_rate: v.optional(oneOf(BAUD_RATES), 9600),
  data_bits: v.optional(oneOf(DATA_BITS), 8),
  parity: v.optional(oneOf(PARITIES), 'none'),
  stop_bits: v.optional(oneOf(STOP_BITS), 1),
  flow_control: v.optional(oneOf(FLOW_CONTROLS), 'none'),
};

export const comReceiverSchema = obj({
  id,
  name: nonEmpty,
  port_id: nonEmpty,
  ...serialLineEntries,
  // SIA-DC09: DC-09 frames on the line; MLR2: Vigil is the automation computer behind a legacy receiver (docs/serial.md).
  protocol: v.optional(oneOf(COM_PROTOCOLS), 'SIA-DC09'),
  encryption_password: encryptionPassword,
  ...dc09RuleEntries,
  // MLR2: no heartbeat (nor message) for this long makes the line degraded; two and a half of the usual 30 s.
  heartbeat_timeout_s: v.optional(int(10, 3600), 75),
});

/**
 * A phone number an installer vouches for as an object's (docs/modem.md §Test calls): a call from it is a link test of
 * the object (this receiver, `account`). The account is written as the objects list shows it (upper-case hex).
 */
const knownCallerSchema = obj({
  account: v.pipe(
    str,
    v.regex(
      /^[0-9A-F]{3,16}$/,
      'must be 3 to 16 upper-case hex digits (0-9, A-F), as the objects list shows the account',
    ),
  ),
  number: v.pipe(
    str,
    v.regex(/^\+?[0-9][0-9 -]*$/, 'must be a phone number: digits, optionally a leading +, spaces and dashes'),
    v.check((s) => s.replace(/\D/g, '').length >= 3 && s.replace(/\D/g, '').length <= 20, 'must have 3 to 20 digits'),
  ),
});

export const modemReceiverSchema = obj({
  id,
  name: nonEmpty,
  port_id: nonEmpty,
  baud_rate: v.optional(oneOf(BAUD_RATES), 9600),
  encryption_password: v.optional(receiverPassword),
  sim_pin: v.optional(simPin),
  // docs/modem.md §Status: how often signal and registration are read; below min_csq is trouble.
  poll_interval_s: v.optional(int(1, 3600), 30),
  min_csq: v.optional(int(1, 31), 10),
  // docs/modem.md §Test calls: numbers configured on objects; the others are learned only from encrypted SMS.
  known_callers: v.optional(list(knownCallerSchema), []),
});

export const receiversEntries = {
  // None by default: nothing listens for devices until the installer configures the ports its
  // panels are programmed for (docs/settings.md), and two fresh gateways never collide.
  tcp_receivers: v.optional(list(tcpReceiverSchema), []),
  udp_receivers: v.optional(list(udpReceiverSchema), []),
  com_receivers: v.optional(list(comReceiverSchema), []),
  modem_receivers: v.optional(list(modemReceiverSchema), []),
};

export const RECEIVER_LISTS = ['tcp_receivers', 'udp_receivers', 'com_receivers', 'modem_receivers'] as const;
export type ReceiverListName = (typeof RECEIVER_LISTS)[number];

export type IpReceiverSettings = v.InferOutput<typeof ipReceiverSchema>;
export type TcpReceiverSettings = v.InferOutput<typeof tcpReceiverSchema>;
export type UdpReceiverSettings = v.InferOutput<typeof udpReceiverSchema>;
/** What the receivers read: the per-source fields may be left out (tests, tools) and then take their defaults. */
export type TcpListenerSettings = IpReceiverSettings &
  Partial<Pick<TcpReceiverSettings, keyof typeof SOURCE_LIMIT_DEFAULTS & keyof TcpReceiverSettings>>;
export type UdpListenerSettings = IpReceiverSettings &
  Partial<Pick<UdpReceiverSettings, 'max_datagrams_per_source_per_s'>>;
/** The fields the DC-09 decision reads, common to IP and COM receivers. */
export type Dc09RuleSettings = Pick<
  IpReceiverSettings,
  'id' | 'name' | 'encryption_password' | 'link_enrolment' | keyof typeof dc09RuleEntries
>;
export type ComReceiverSettings = v.InferOutput<typeof comReceiverSchema>;
export type ModemReceiverSettings = v.InferOutput<typeof modemReceiverSchema>;
export type KnownCallerSettings = v.InferOutput<typeof knownCallerSchema>;
export type BaudRate = (typeof BAUD_RATES)[number];
