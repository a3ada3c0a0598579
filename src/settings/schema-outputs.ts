/**
 * Output items. The contract names the fields and leaves every range "not shown"; Vigil's ranges
 * are decided here and in cross-receivers.ts (rules that depend on type or protocol) and are
 * documented in docs/settings.md §outputs and docs/outputs.md §Settings.
 */
import * as v from 'valibot';
import { EVENT_CLASSES } from '../core/event-class.js';
import { bool, id, int, list, nonEmpty, obj, oneOf, str } from './fields.js';
import { serialLineEntries } from './schema-receivers.js';

/** outputs[].type: the link an output uses (the one place these numbers are spelt). */
export const OUTPUT_TYPES = { tcp: 1, udp: 2, com: 3, webhook: 4, tcp_server: 5 } as const;
/** `JSON` is the webhook's body (docs/outputs.md §Webhook) or the JSON server's lines (§JSON server); the others are receiver feeds. */
export const OUTPUT_PROTOCOLS = ['MLR2', 'MLR2-DG', 'SIA-DC09', 'JSON', 'ADEMCO-685'] as const;

const linkTestInterval = int(0, 86400, 'must be 0 (off) or between 10 and 86400');

export const siaDc09Schema = obj({
  encryption_enabled: v.optional(bool, false),
  // Format checked in cross-validate.ts: it is only required when encryption_enabled is true.
  encryption_key: v.optional(str, ''),
  link_test_interval_s: v.optional(
    v.pipe(
      linkTestInterval,
      v.check((n) => n === 0 || n >= 10, 'must be 0 (off) or between 10 and 86400'),
    ),
    60,
  ),
  ack_timeout_ms: v.optional(int(500, 60000), 5000),
  // Transmissions after the first before the output is declared failed (the MLR2 rule, 3, as the default).
  retries: v.optional(int(0, 10), 3),
});

/**
 * The webhook block of a type 4 output (docs/outputs.md §Webhook). The URL is the output's `identificator`;
 * the secret's format and the retry bounds' order are checked in webhook-check.ts (the secret is required).
 */
export const webhookSchema = obj({
  secret: v.optional(str, ''),
  timeout_ms: v.optional(int(1000, 60000), 10000),
  // Events per POST: 1 keeps one event per request (the simplest receiver); more drain a backlog faster.
  batch_size: v.optional(int(1, 100), 1),
  // Consecutive failed POSTs after the first before the output is reported failed (it keeps retrying).
  retries: v.optional(int(0, 10), 3),
  retry_min_ms: v.optional(int(100, 60000), 1000),
  retry_max_ms: v.optional(int(1000, 3_600_000), 30000),
  // PEM file of the CA certificates to trust instead of the system store ("" = the system store).
  ca_file: v.optional(str, ''),
});

/**
 * The TCP server block of a type 5 output (docs/outputs.md §TCP server). The bind address and port are the output's
 * `identificator`; entries and port collisions are checked in tcp-server-check.ts.
 */
export const tcpServerSchema = obj({
  // IPv4/IPv6 addresses or CIDR blocks of the automation clients; [] admits loopback only.
  allowed_clients: v.optional(list(str), []),
  // No automation client connected for this long fails the output (output_failed).
  no_client_failed_s: v.optional(int(5, 86400), 60),
});

/**
 * The Sur-Gard layout variant of an MLR2 / MLR2-DG output (docs/outputs.md §MLR2 variants); absent = the defaults.
 * line_digits 3 is the MLR2-E / System III "virtual line" (5RRLLL...); long_accounts "contact_id_10" sends accounts of
 * 5..10 digits in the 10-digit Contact ID layout (QRRLLLs58...) instead of skipping them. Combinations: cross-receivers.ts.
 */
export const mlr2OptionsSchema = obj({
  line_digits: v.optional(oneOf([1, 3] as const), 1),
  long_accounts: v.optional(oneOf(['skip', 'contact_id_10'] as const), 'skip'),
});

/** How a type 3 output opens its serial device (the COM receivers' line fields and defaults, docs/serial.md). */
export const outputSerialSchema = obj(serialLineEntries);

export const outputFiltersSchema = obj({
  receivers: v.optional(list(id), []),
  event_classes: v.optional(list(oneOf(EVENT_CLASSES)), []),
});

const outputObject = obj({
  id,
  name: nonEmpty,
  type: v.picklist(
    [OUTPUT_TYPES.tcp, OUTPUT_TYPES.udp, OUTPUT_TYPES.com, OUTPUT_TYPES.webhook, OUTPUT_TYPES.tcp_server],
    'must be 1 (TCP), 2 (UDP), 3 (serial COM), 4 (webhook) or 5 (TCP server)',
  ),
  protocol: oneOf(OUTPUT_PROTOCOLS),
  identificator: nonEmpty,
  oid: int(0, 0xffff, 'must be between 0 and 65535 (0xFFFF)'),
  // Widest range here (SIA-DC09 R and L fields); MLR2 narrows it in cross-validate.ts.
  receiver_number: int(0, 0xffffff),
  line_number: int(0, 0xffffff),
  sia_dc09: v.optional(siaDc09Schema),
  // MLR2 / MLR2-DG only (cross-receivers.ts).
  mlr2: v.optional(mlr2OptionsSchema),
  // Type 3 only (cross-validate.ts): baud rate, data bits, parity, stop bits, flow control.
  serial: v.optional(outputSerialSchema),
  // Type 4 only (webhook-check.ts).
  webhook: v.optional(webhookSchema),
  // Type 5 only (tcp-server-check.ts).
  tcp_server: v.optional(tcpServerSchema),
  filters: v.optional(outputFiltersSchema, {}),
  enabled: v.optional(bool, true),
});

/** The default SIA-DC09 parameters, derived from the schema (declared once). */
export function defaultSiaDc09(): SiaDc09Settings {
  return v.parse(siaDc09Schema, {});
}

/** The default webhook parameters, derived from the schema (declared once). */
export function defaultWebhook(): WebhookSettings {
  return v.parse(webhookSchema, {});
}

/** The default TCP server parameters, derived from the schema (declared once). */
export function defaultTcpServer(): TcpServerSettings {
  return v.parse(tcpServerSchema, {});
}

/** The default line settings of a serial output, derived from the schema (declared once). */
export function defaultOutputSerial(): OutputSerialSettings {
  return v.parse(outputSerialSchema, {});
}

/**
 * A SIA-DC09 output always carries its sia_dc09 block, a serial (type 3) output its serial block and a webhook
 * (type 4) output its webhook block, in the stored form (filled with defaults).
 */
export const outputSchema = v.pipe(
  outputObject,
  v.transform((o) =>
    o.protocol === 'SIA-DC09' && o.sia_dc09 === undefined ? { ...o, sia_dc09: defaultSiaDc09() } : o,
  ),
  v.transform((o) =>
    o.type === OUTPUT_TYPES.com && o.serial === undefined ? { ...o, serial: defaultOutputSerial() } : o,
  ),
  v.transform((o) =>
    o.type === OUTPUT_TYPES.webhook && o.webhook === undefined ? { ...o, webhook: defaultWebhook() } : o,
  ),
  v.transform((o) =>
    o.type === OUTPUT_TYPES.tcp_server && o.tcp_server === undefined ? { ...o, tcp_server: defaultTcpServer() } : o,
  ),
);

export type SiaDc09Settings = v.InferOutput<typeof siaDc09Schema>;
export type WebhookSettings = v.InferOutput<typeof webhookSchema>;
export type TcpServerSettings = v.InferOutput<typeof tcpServerSchema>;
export type Mlr2OptionsSettings = v.InferOutput<typeof mlr2OptionsSchema>;
export type OutputSerialSettings = v.InferOutput<typeof outputSerialSchema>;
export type OutputFilters = v.InferOutput<typeof outputFiltersSchema>;
export type OutputSettings = v.InferOutput<typeof outputSchema>;
export type OutputProtocol = (typeof OUTPUT_PROTOCOLS)[number];
