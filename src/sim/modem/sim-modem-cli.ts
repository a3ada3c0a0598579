/**
 * `vigil sim-modem --pty PATH`: a simulated GSM modem on one end of a pseudo-terminal pair
 * (socat), for trying a modem receiver without hardware (docs/modem.md §Trying it). Commands on
 * stdin, one per line, drive it:
 *   sms NUMBER TEXT             deliver an SMS (long text becomes a concatenated SMS)
 *   sms-order ORDER NUMBER TEXT deliver the parts in this order, e.g. "3,1,2"
 *   ring NUMBER                 an incoming call with caller id
 *   silent on|off               stop / resume answering (a hung modem)
 *   echo on|off                 command echo
 *   csq N | creg N              signal quality (0..31, 99) / registration state (0..5)
 *   urc LINE                    any unsolicited line (^RSSI:5, RDY, ...)
 * Each command's effect is reported on stdout as one JSON line.
 */
import { createInterface } from 'node:readline';
import { SerialPort } from 'serialport';
import { UsageError } from '../../core/usage-error.js';
import { ModemSimulator, type ModemSimOptions } from './modem-sim.js';

export const SIM_MODEM_HELP = `vigil sim-modem --pty PATH [--pin DIGITS] [--index-base 0|1] [--no-echo] [--csq N] [--creg N]
                [--delay-ms N] [--baud N]
stdin: sms NUMBER TEXT | sms-order 2,1 NUMBER TEXT | ring NUMBER | silent on|off | echo on|off
       | csq N | creg N | urc LINE`;

interface SimModemArgs {
  readonly pty: string;
  readonly baud: number;
  readonly options: ModemSimOptions;
}

export function parseSimModemArgs(argv: readonly string[]): SimModemArgs | null {
  let pty: string | null = null;
  let baud = 9600;
  const options: { -readonly [K in keyof ModemSimOptions]: ModemSimOptions[K] } = {};
  const int = (flag: string, value: string | undefined, min: number, max: number): number => {
    const n = Number(value);
    if (value === undefined || !Number.isInteger(n) || n < min || n > max)
      throw new UsageError(`sim-modem: ${flag} must be an integer ${min}..${max}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    switch (flag) {
      case '--help':
      case '-h':
        return null;
      case '--pty':
        if (!value) throw new UsageError('sim-modem: --pty needs a path');
        pty = value;
        i++;
        break;
      case '--pin':
        if (!value || !/^\d{4,8}$/.test(value)) throw new UsageError('sim-modem: --pin must be 4 to 8 digits');
        options.pin = value;
        i++;
        break;
      case '--index-base':
        options.indexBase = int(flag, value, 0, 1) as 0 | 1;
        i++;
        break;
      case '--no-echo':
        options.echo = false;
        break;
      case '--csq':
        options.csq = int(flag, value, 0, 99);
        i++;
        break;
      case '--creg':
        options.creg = int(flag, value, 0, 5);
        i++;
        break;
      case '--delay-ms':
        options.answerDelayMs = int(flag, value, 0, 60_000);
        i++;
        break;
      case '--baud':
        baud = int(flag, value, 1200, 115200);
        i++;
        break;
      default:
        throw new UsageError(`sim-modem: unknown option ${flag}\n${SIM_MODEM_HELP}`);
    }
  }
  if (pty === null) throw new UsageError(`sim-modem: --pty is required\n${SIM_MODEM_HELP}`);
  return { pty, baud, options };
}

/** Applies one stdin command; returns the JSON report line. */
export function applySimCommand(sim: ModemSimulator, line: string): Record<string, unknown> {
  const [word, ...rest] = line.trim().split(/\s+/);
  const tail = line
    .trim()
    .slice((word ?? '').length)
    .trim();
  switch (word) {
    case 'sms': {
      const [number] = rest;
      const text = tail.slice((number ?? '').length).trim();
      if (!number || text === '') return { error: 'usage: sms NUMBER TEXT' };
      return { delivered: sim.deliver({ sender: number, text }) };
    }
    case 'sms-order': {
      const [order, number] = rest;
      const text = tail.slice(`${order} ${number}`.length).trim();
      if (!order || !number || text === '' || !/^\d+(,\d+)*$/.test(order))
        return { error: 'usage: sms-order 2,1 NUMBER TEXT' };
      return {
        delivered: sim.deliver(
          { sender: number, text },
          order.split(',').map((n) => Number(n) - 1),
        ),
      };
    }
    case 'ring':
      if (!rest[0]) return { error: 'usage: ring NUMBER' };
      sim.ring(rest[0]);
      return { rang: rest[0] };
    case 'silent':
    case 'echo': {
      const on = rest[0] === 'on';
      if (word === 'silent') sim.silent = on;
      else sim.echo = on;
      return { [word]: on };
    }
    case 'csq':
    case 'creg': {
      const n = Number(rest[0]);
      if (!Number.isInteger(n)) return { error: `usage: ${word} N` };
      sim[word] = n;
      return { [word]: n };
    }
    case 'urc':
      sim.urc(tail);
      return { urc: tail };
    default:
      return { error: `unknown command ${word ?? ''}` };
  }
}

export async function runSimModemCli(argv: readonly string[]): Promise<void> {
  const args = parseSimModemArgs(argv);
  if (!args) {
    process.stdout.write(`${SIM_MODEM_HELP}\n`);
    return;
  }
  const port = new SerialPort({ path: args.pty, baudRate: args.baud, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  const sim = new ModemSimulator((text) => port.write(text, 'latin1'), args.options);
  port.on('data', (chunk: Buffer) => sim.feed(chunk));
  port.on('close', () => {
    sim.stop();
    process.exit(0);
  });
  process.stdout.write(`${JSON.stringify({ ready: args.pty })}\n`);
  const input = createInterface({ input: process.stdin });
  input.on('line', (line) => {
    if (line.trim() === '') return;
    process.stdout.write(`${JSON.stringify(applySimCommand(sim, line))}\n`);
  });
  const stop = (): void => {
    sim.stop();
    port.close(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
