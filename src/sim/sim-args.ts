/**
 * `vigil sim` flags -> SimOptionsInput. One table declares every flag with its help text, so the
 * help cannot miss a flag the parser accepts. Values are checked by resolveSimOptions.
 */
import { parseArgs } from 'node:util';
import {
  LINK_FAULTS,
  SIM_DEFAULTS,
  SIM_LIMITS,
  type SimCodes,
  type SimOptionsInput,
  type SimToken,
  type SimTransport,
  type LinkFault,
} from './sim-options.js';

export class SimUsageError extends Error {}

type Input = SimOptionsInput & { port: number };

interface Flag {
  readonly name: string;
  readonly value?: string;
  readonly help: string;
  readonly apply: (input: Input, value: string | boolean) => void;
}

function number(flag: string, text: string | boolean): number {
  const value = Number(text);
  if (typeof text !== 'string' || text.trim() === '' || !Number.isFinite(value))
    throw new SimUsageError(`--${flag}: must be a number`);
  return value;
}

const str = (v: string | boolean): string => String(v);
const link = (input: Input): NonNullable<Input['link']> => (input.link ??= {});

export const SIM_FLAGS: readonly Flag[] = [
  {
    name: 'host',
    value: 'ADDR',
    help: `gateway address (default ${SIM_DEFAULTS.host}; only this host is contacted)`,
    apply: (i, v) => (i.host = str(v)),
  },
  { name: 'port', value: 'N', help: 'gateway receiver port (required)', apply: (i, v) => (i.port = number('port', v)) },
  {
    name: 'transport',
    value: 'tcp|udp',
    help: `transport (default ${SIM_DEFAULTS.transport})`,
    apply: (i, v) => (i.transport = str(v) as SimTransport),
  },
  {
    name: 'devices',
    value: 'N',
    help: `number of devices (default ${SIM_DEFAULTS.devices}; TCP up to ${SIM_LIMITS.maxTcpDevices}, UDP up to ${SIM_LIMITS.maxUdpDevices}, one socket each)`,
    apply: (i, v) => (i.devices = number('devices', v)),
  },
  {
    name: 'account-base',
    value: 'HEX',
    help: `account of the first device; device i uses base+i, leading zeros kept (default ${SIM_DEFAULTS.accountBase})`,
    apply: (i, v) => (i.accountBase = str(v)),
  },
  {
    name: 'uid-base',
    value: 'HEX',
    help: `device-link UID of the first device, 6..32 hex digits (default ${SIM_DEFAULTS.uidBase})`,
    apply: (i, v) => (i.uidBase = str(v)),
  },
  {
    name: 'token',
    value: 'SIA-DCS|ADM-CID',
    help: `event format (default ${SIM_DEFAULTS.token})`,
    apply: (i, v) => (i.token = str(v) as SimToken),
  },
  {
    name: 'codes',
    value: 'burglary|mains',
    help: "alarm / restore pairs: burglary zones (default) or the panel's mains supply (AC loss, zone 000)",
    apply: (i, v) => (i.codes = str(v) as SimCodes),
  },
  {
    name: 'restore-after',
    value: 'S',
    help: 'mains-failure storm: each device sends one alarm once connected and its restore S seconds later, nothing else',
    apply: (i, v) => (i.restoreAfterMs = Math.round(number('restore-after', v) * 1000)),
  },
  {
    name: 'rate',
    value: 'N',
    help: `events per second per device, paced (default ${SIM_DEFAULTS.ratePerDevice}; 0 = no events)`,
    apply: (i, v) => (i.ratePerDevice = number('rate', v)),
  },
  {
    name: 'total-rate',
    value: 'N',
    help: 'events per second over the whole fleet, split evenly (instead of --rate)',
    apply: (i, v) => (i.totalRate = number('total-rate', v)),
  },
  {
    name: 'saturate',
    help: 'send the next event as soon as the previous is ACKed (throughput test)',
    apply: (i) => (i.saturate = true),
  },
  {
    name: 'window',
    value: 'N',
    help: `unACKed messages per device at once (default ${SIM_DEFAULTS.window}, as real panels)`,
    apply: (i, v) => (i.window = number('window', v)),
  },
  {
    name: 'link-test',
    value: 'S',
    help: 'NULL link test every S seconds per device (default 0 = off)',
    apply: (i, v) => (i.linkTestIntervalMs = Math.round(number('link-test', v) * 1000)),
  },
  {
    name: 'key',
    value: 'TEXT',
    help: 'AES key: 16/24/32 characters, 32/48/64 hex digits, or the 6-character receiver password',
    apply: (i, v) => (i.key = str(v)),
  },
  {
    name: 'receiver',
    value: 'HEX',
    help: 'receiver number field R (1..6 hex digits; default none)',
    apply: (i, v) => (i.receiver = str(v)),
  },
  {
    name: 'line',
    value: 'HEX',
    help: 'line prefix field L (1..6 hex digits; default none)',
    apply: (i, v) => (i.line = str(v)),
  },
  {
    name: 'no-timestamp',
    help: 'plain messages without timestamp (encrypted ones always carry one)',
    apply: (i) => (i.timestamps = false),
  },
  {
    name: 'clock-skew',
    value: 'S',
    help: "device clocks off by S seconds (provokes the receiver's NAK; the device then takes the NAK's time)",
    apply: (i, v) => (i.clockSkewMs = Math.round(number('clock-skew', v) * 1000)),
  },
  {
    name: 'duration',
    value: 'S',
    help: `run time in seconds (default ${SIM_DEFAULTS.durationMs / 1000}; at most 7 days)`,
    apply: (i, v) => (i.durationMs = Math.round(number('duration', v) * 1000)),
  },
  {
    name: 'events',
    value: 'N',
    help: 'stop after N events over the fleet (and their ACKs), even before --duration',
    apply: (i, v) => (i.maxEvents = number('events', v)),
  },
  {
    name: 'ack-timeout',
    value: 'MS',
    help: `resend an unACKed message after MS milliseconds (default ${SIM_DEFAULTS.ackTimeoutMs})`,
    apply: (i, v) => (i.ackTimeoutMs = number('ack-timeout', v)),
  },
  {
    name: 'retries',
    value: 'N',
    help: `resends per message before giving up (default ${SIM_DEFAULTS.maxRetries})`,
    apply: (i, v) => (i.maxRetries = number('retries', v)),
  },
  {
    name: 'drain',
    value: 'MS',
    help: `after the run, wait at most MS for outstanding ACKs (default ${SIM_DEFAULTS.drainMs})`,
    apply: (i, v) => (i.drainMs = number('drain', v)),
  },
  {
    name: 'connect-rate',
    value: 'N',
    help: `devices started per second (default ${SIM_DEFAULTS.connectRate}; 0 = all at once)`,
    apply: (i, v) => (i.connectRate = number('connect-rate', v)),
  },
  {
    name: 'max-reconnects',
    value: 'N',
    help: `reconnections per device per run, with backoff ${SIM_DEFAULTS.reconnectInitialMs} ms doubling to ${SIM_DEFAULTS.reconnectMaxMs / 1000} s (default ${SIM_DEFAULTS.maxReconnects})`,
    apply: (i, v) => (i.maxReconnects = number('max-reconnects', v)),
  },
  {
    name: 'local-address',
    value: 'A,B,..',
    help: 'source addresses used round robin (e.g. 127.0.0.2,127.0.0.3 for many connections)',
    apply: (i, v) =>
      (i.localAddresses = str(v)
        .split(',')
        .map((a) => a.trim())),
  },
  {
    name: 'no-hello',
    help: 'TCP: do not send VL-HELLO on connect (a plain DC-09 panel)',
    apply: (i) => (link(i).hello = false),
  },
  {
    name: 'hw-id',
    value: 'TEXT',
    help: `hardware id in VL-HELLO (default ${SIM_DEFAULTS.hwId})`,
    apply: (i, v) => (link(i).hwId = str(v)),
  },
  {
    name: 'firmware',
    value: 'TEXT',
    help: `firmware in VL-HELLO (default ${SIM_DEFAULTS.firmware})`,
    apply: (i, v) => (link(i).firmware = str(v)),
  },
  {
    name: 'reply-packets',
    value: 'N',
    help: `VL-RSP packets answering a command that wants data (default ${SIM_DEFAULTS.replyPackets})`,
    apply: (i, v) => (link(i).replyPackets = number('reply-packets', v)),
  },
  {
    name: 'reply-data',
    value: 'HEX',
    help: "data of each reply packet (default: echo the command's data)",
    apply: (i, v) => (link(i).replyData = str(v)),
  },
  {
    name: 'reply-delay',
    value: 'MS',
    help: 'wait MS before answering a command (default 0)',
    apply: (i, v) => (link(i).replyDelayMs = number('reply-delay', v)),
  },
  {
    name: 'master-password',
    value: 'TEXT',
    help: 'commands must carry this cloud access code (or the omit flag), else status MPASS',
    apply: (i, v) => (link(i).masterPassword = str(v)),
  },
  {
    name: 'device-keys',
    value: 'FILE',
    help: 'device-link keys by UID (JSON); read at start, enrolled keys written back at the end',
    apply: (i, v) => (i.deviceKeysFile = str(v)),
  },
  {
    name: 'fault',
    value: LINK_FAULTS.join('|'),
    help: 'answer every command wrongly: packet numbers 0..n-1, packet count 0, no answer, MPASS, BAD or REJ',
    apply: (i, v) => (link(i).fault = str(v) as LinkFault),
  },
  { name: 'quiet', help: 'no progress line per second (the final JSON summary only)', apply: () => undefined },
  { name: 'help', help: 'this text', apply: () => undefined },
];

export const SIM_HELP = [
  'usage: vigil sim --port N [flags]',
  '',
  'Simulates DC-09 alarm panels (SIA-DCS or ADM-CID, plain or AES) that connect to a Vigil receiver,',
  'and answer device-link commands. Prints one progress line per second on stderr and a JSON summary',
  'on stdout; exit code 0 when every event was ACKed, 1 otherwise.',
  '',
  ...SIM_FLAGS.map((f) => {
    const left = `  --${f.name}${f.value ? ` ${f.value}` : ''}`;
    return left.length < 30 ? `${left.padEnd(30)}${f.help}` : `${left}\n${' '.repeat(30)}${f.help}`;
  }),
].join('\n');

export type SimCliCommand = { kind: 'help' } | { kind: 'run'; input: Input; quiet: boolean };

export function parseSimArgs(argv: readonly string[]): SimCliCommand {
  const spec: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const flag of SIM_FLAGS) spec[flag.name] = { type: flag.value ? 'string' : 'boolean' };
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: [...argv], options: spec, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new SimUsageError(err instanceof Error ? err.message : String(err));
  }
  if (values.help) return { kind: 'help' };
  if (values.port === undefined) throw new SimUsageError('--port is required');
  const input = { port: 0 } as Input;
  for (const flag of SIM_FLAGS) {
    const value = values[flag.name];
    if (value !== undefined) flag.apply(input, value);
  }
  return { kind: 'run', input, quiet: values.quiet === true };
}
