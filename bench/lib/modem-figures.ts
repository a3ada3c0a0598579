/**
 * The modem half of bench/serial.ts (docs/modem.md §Figures):
 *   - SMS decoded per second: PDU -> text -> payload (Contact ID, DC-09 frame, plain text, a
 *     3-part concatenated SMS) in this thread, each run bounded to about 2 s;
 *   - the AT round trip over a real pseudo-terminal pair (socat) to the simulated modem: AT,
 *     AT+CSQ and a full AT+CMGR read, median and p99 of a bounded number of commands.
 */
import { SerialPort } from 'serialport';
import { performance } from 'node:perf_hooks';
import { buildMessage } from '../../src/protocols/dc09/encoder.js';
import { interpretSms } from '../../src/protocols/sms/payload.js';
import { decodeDeliverPdu } from '../../src/protocols/sms/pdu.js';
import { encodeDeliverPdus } from '../../src/protocols/sms/pdu-encode.js';
import { SmsReassembler } from '../../src/protocols/sms/reassembly.js';
import { AtDriver } from '../../src/receivers/modem/at-driver.js';
import { ModemSimulator } from '../../src/sim/modem/modem-sim.js';
import { PtyPair } from '../../test/helpers/pty-pair.js';

const RUN_MS = 2000;
const AT_COMMANDS = 500;
const SENT = Date.UTC(2026, 0, 1);

function decodeRate(label: string, pdus: string[]): string {
  const reassembler = new SmsReassembler<number>();
  let messages = 0;
  const started = performance.now();
  while (performance.now() - started < RUN_MS) {
    for (let i = 0; i < pdus.length; i++) {
      const r = decodeDeliverPdu(pdus[i]!);
      if (!r.ok) throw new Error(r.error);
      let text: string | null = r.sms.text;
      if (r.sms.concat)
        text = reassembler.add({ sender: r.sms.sender, concat: r.sms.concat, text, tag: i }, 0)?.text ?? null;
      if (text === null) continue;
      interpretSms(text, { key: null, now: SENT, sentAt: r.sms.sentAt });
      messages++;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  return `${label.padEnd(34)} ${Math.round(messages / seconds)
    .toString()
    .padStart(8)} SMS/s`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

async function open(path: string): Promise<SerialPort> {
  const port = new SerialPort({ path, baudRate: 115200, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  return port;
}

async function roundTrips(): Promise<string[]> {
  const pty = new PtyPair('vigil-bench-pty-');
  await pty.start();
  const a = await open(pty.a);
  const b = await open(pty.b);
  const sim = new ModemSimulator((text) => b.write(text, 'latin1'), { echo: false, capacity: 10 });
  b.on('data', (chunk: Buffer) => sim.feed(chunk));
  const driver = new AtDriver({ write: (text) => a.write(text, 'latin1'), onUrc: () => undefined, timeoutMs: 2000 });
  a.on('data', (chunk: Buffer) => driver.feed(chunk));
  const [index] = sim.deliver({ sender: '+37060000000', text: '1234 18 1 131 01 015 8', sentAt: SENT });
  const out: string[] = [];
  try {
    for (const [label, command, expect] of [
      ['AT', 'AT', undefined],
      ['AT+CSQ', 'AT+CSQ', '+CSQ'],
      ['AT+CMGR (one SMS)', `AT+CMGR=${index}`, '+CMGR'],
    ] as const) {
      const times: number[] = [];
      for (let i = 0; i < AT_COMMANDS; i++) {
        const t0 = performance.now();
        await driver.send(command, expect ? { expect } : {});
        times.push(performance.now() - t0);
      }
      times.sort((x, y) => x - y);
      out.push(
        `${label.padEnd(34)} median ${percentile(times, 0.5).toFixed(2)} ms, p99 ${percentile(times, 0.99).toFixed(2)} ms (${AT_COMMANDS} commands)`,
      );
    }
  } finally {
    driver.close('bench over');
    await new Promise<void>((r) => a.close(() => r()));
    await new Promise<void>((r) => b.close(() => r()));
    await pty.close();
  }
  return out;
}

export async function modemFigures(): Promise<string[]> {
  const cid = encodeDeliverPdus({ sender: '+37060000000', text: '1234 18 1 131 01 015 8', sentAt: SENT });
  const frame = buildMessage({
    token: 'SIA-DCS',
    sequence: 1,
    account: '1234',
    data: '#1234|Nri1/BA01',
    timestamp: SENT,
  }).toString('latin1');
  const dc09 = encodeDeliverPdus({ sender: '+37060000000', text: frame.trim(), sentAt: SENT });
  const text = encodeDeliverPdus({ sender: '+37060000000', text: 'Power failure at the warehouse', sentAt: SENT });
  const ucs2 = encodeDeliverPdus({ sender: '+37060000000', text: 'Signalizacija: įsilaužimas, zona 5', sentAt: SENT });
  const parts = encodeDeliverPdus({ sender: '+37060000000', text: 'x'.repeat(400), sentAt: SENT, ref: 9 }).reverse();
  return [
    decodeRate('Contact ID (GSM 7-bit)', cid),
    decodeRate('DC-09 frame (GSM 7-bit)', dc09),
    decodeRate('plain text (GSM 7-bit)', text),
    decodeRate('plain text (UCS-2)', ucs2),
    decodeRate('3-part SMS, parts reversed', parts),
    ...(await roundTrips()),
  ];
}
