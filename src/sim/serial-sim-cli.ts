/**
 * `vigil sim --serial PATH [flags]` (docs/simulator.md §Serial): DC-09 frames or MLR2 lines over a serial device.
 * The serial line comes from the caller (src/cli.ts asks src/gateway/hardware.ts, the one file that touches hw/). JSON summary
 * on stdout; exit code 0 when every message was ACKed, 1 otherwise, 2 for a usage error.
 */
import { parseArgs } from 'node:util';
import { UsageError } from '../core/usage-error.js';
import type { Parity, SerialLineFactory } from '../core/serial.js';
import { resolveSimKey } from './identity.js';
import { SerialSimulator, type SerialSimOptions, type SerialSimSummary } from './serial-sim.js';

export const SERIAL_SIM_HELP = `usage: vigil sim --serial PATH [flags]

Sends DC-09 frames (a panel on a COM line) or MLR2 computer-port lines (a legacy receiver feeding its automation
computer) over a serial device, waits for each answer and resends on silence or NAK. JSON summary on stdout.

  --serial PATH                 the serial device (required)
  --protocol SIA-DC09|MLR2      what to send (default SIA-DC09)
  --baud N                      line speed (default 9600); --data-bits 7|8, --parity none|even|odd, --stop-bits 1|2
  --events N                    messages to deliver (default 10, at most 1000000)
  --token SIA-DCS|ADM-CID       DC-09 event format (default SIA-DCS)
  --account HEX                 account (default 1234; MLR2 Contact ID: 4 hex digits)
  --key TEXT                    DC-09 AES key or 6/16-character receiver password
  --window N                    DC-09 frames awaiting their answer at once (default 1; MLR2 always 1)
  --rate N                      messages per second (default: the next as soon as the window allows)
  --ack-timeout MS              resend after MS without an answer (default 5000 DC-09, 4000 MLR2)
  --retries N                   resends per message (default 3)
  --heartbeat S                 MLR2: heartbeat after S idle seconds (default 30; 0 = none)
  --emulate-baud                pace both directions at --baud (a pty has no wire speed of its own)
  --duration S                  stop after S seconds at most (default 60)`;

export interface SerialSimCommand {
  readonly path: string;
  readonly baudRate: number;
  readonly dataBits: 7 | 8;
  readonly parity: Parity;
  readonly stopBits: 1 | 2;
  readonly options: SerialSimOptions;
}

function int(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max)
    throw new UsageError(`sim --${name}: must be an integer ${min}..${max}`);
  return value;
}

function oneOf<T extends string>(name: string, text: string | undefined, allowed: readonly T[], fallback: T): T {
  if (text === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(text))
    throw new UsageError(`sim --${name}: must be one of ${allowed.join(', ')}`);
  return text as T;
}

export function parseSerialSimArgs(argv: readonly string[]): SerialSimCommand | null {
  const names = [
    'serial',
    'protocol',
    'baud',
    'data-bits',
    'parity',
    'stop-bits',
    'events',
    'token',
    'account',
    'key',
    'window',
    'rate',
    'ack-timeout',
    'retries',
    'heartbeat',
    'duration',
  ];
  const options: Record<string, { type: 'string' | 'boolean' }> = {
    'emulate-baud': { type: 'boolean' },
    help: { type: 'boolean' },
  };
  for (const name of names) options[name] = { type: 'string' };
  let v: Record<string, string | boolean | undefined>;
  try {
    v = parseArgs({ args: [...argv], options, strict: true }).values;
  } catch (err) {
    throw new UsageError(`sim: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (v.help) return null;
  const s = (name: string): string | undefined => v[name] as string | undefined;
  const path = s('serial');
  if (!path) throw new UsageError('sim --serial: a device path is required');
  const protocol = oneOf('protocol', s('protocol'), ['SIA-DC09', 'MLR2'] as const, 'SIA-DC09');
  const baudRate = int('baud', s('baud'), 9600, 50, 4_000_000);
  const dataBits = int('data-bits', s('data-bits'), 8, 7, 8) as 7 | 8;
  const parity = oneOf('parity', s('parity'), ['none', 'even', 'odd'] as const, 'none');
  const stopBits = int('stop-bits', s('stop-bits'), 1, 1, 2) as 1 | 2;
  const account = s('account') ?? '1234';
  if (!(protocol === 'MLR2' ? /^[0-9A-Fa-f]{4}$/ : /^[0-9A-Fa-f]{3,16}$/).test(account)) {
    throw new UsageError(`sim --account: ${protocol === 'MLR2' ? '4' : '3 to 16'} hex digits`);
  }
  const rate = s('rate');
  const key = s('key');
  return {
    path,
    baudRate,
    dataBits,
    parity,
    stopBits,
    options: {
      protocol,
      events: int('events', s('events'), 10, 1, 1_000_000),
      token: oneOf('token', s('token'), ['SIA-DCS', 'ADM-CID'] as const, 'SIA-DCS'),
      account: account.toUpperCase(),
      key: key ? resolveSimKey(key) : null,
      window: int('window', s('window'), 1, 1, 64),
      ackTimeoutMs: int('ack-timeout', s('ack-timeout'), protocol === 'MLR2' ? 4000 : 5000, 50, 600_000),
      retries: int('retries', s('retries'), 3, 0, 100),
      ratePerS: rate === undefined ? null : int('rate', rate, 1, 1, 100_000),
      emulateBaud: v['emulate-baud'] ? baudRate : null,
      // Start bit + data bits + parity bit + stop bits per character on the wire.
      bitsPerChar: 1 + dataBits + (parity === 'none' ? 0 : 1) + stopBits,
      heartbeatMs: protocol === 'MLR2' ? int('heartbeat', s('heartbeat'), 30, 0, 3600) * 1000 : 0,
      durationMs: int('duration', s('duration'), 60, 1, 7 * 86400) * 1000,
    },
  };
}

/** Opens the line, runs, prints the summary; sets process.exitCode 1 when a message went unACKed. */
export async function runSerialSimCli(
  argv: readonly string[],
  lines: SerialLineFactory,
  out: (text: string) => void = (t) => process.stdout.write(t),
): Promise<SerialSimSummary | null> {
  const command = parseSerialSimArgs(argv);
  if (!command) {
    out(SERIAL_SIM_HELP + '\n');
    return null;
  }
  const line = lines({
    path: command.path,
    baudRate: command.baudRate,
    dataBits: command.dataBits,
    parity: command.parity,
    stopBits: command.stopBits,
    flowControl: 'none',
    owner: 'sim',
  });
  await line.start();
  try {
    if (!line.isOpen) throw new UsageError(`sim --serial: cannot open ${command.path}`);
    const simulator = new SerialSimulator(line, command.options);
    const interrupt = (): void => simulator.stop();
    process.once('SIGINT', interrupt);
    const summary = await simulator.run().finally(() => process.removeListener('SIGINT', interrupt));
    out(JSON.stringify(summary) + '\n');
    if (summary.events_acked !== command.options.events) process.exitCode = 1;
    return summary;
  } finally {
    await line.stop();
  }
}
