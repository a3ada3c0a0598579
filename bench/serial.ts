/**
 * Serial figures (issue 11), in sections; each prints its own table, and a new section is one more entry in SECTIONS:
 *   - com: events/s through a COM receiver at 9,600 and 115,200 baud as a fraction of wire speed (goal >= 90 % for
 *     DC-09); MLR2 shown for reference (one message per ACK by its protocol, so the line idles while it waits);
 *   - modem: SMS decoded per second and the AT round trip over a pseudo-terminal (bench/lib/modem-figures.ts).
 * Needs socat.
 *
 *   node dist/bench/serial.js
 * Narrow it with BENCH_SERIAL_SECTIONS=com or =modem; wire seconds per COM phase BENCH_SERIAL_S=8.
 */
import { loadavg } from 'node:os';
import { runComPhase, type ComPhase, type ComResult } from './lib/com-throughput.js';
import { modemFigures } from './lib/modem-figures.js';
import { formatTable, verdict } from './lib/table.js';

interface BenchSection {
  readonly name: string;
  run(): Promise<string>;
}

const SECONDS = Number(process.env.BENCH_SERIAL_S ?? 8);

function print(text: string): void {
  process.stdout.write(text + '\n');
}

const COM_PHASES: readonly ComPhase[] = [
  { protocol: 'SIA-DC09', baud: 9600, window: 1, seconds: SECONDS },
  { protocol: 'SIA-DC09', baud: 9600, window: 8, seconds: SECONDS },
  { protocol: 'SIA-DC09', baud: 115200, window: 1, seconds: SECONDS },
  { protocol: 'SIA-DC09', baud: 115200, window: 8, seconds: SECONDS },
  { protocol: 'MLR2', baud: 9600, window: 1, seconds: SECONDS },
  { protocol: 'MLR2', baud: 115200, window: 1, seconds: SECONDS },
];

const com: BenchSection = {
  name: 'com',
  async run() {
    const rows: ComResult[] = [];
    for (const phase of COM_PHASES) {
      const r = await runComPhase(phase);
      rows.push(r);
      print(
        `  ${r.protocol} ${r.baud} baud, window ${r.window}: ${r.summary.events_per_s} events/s, ${pct(r.summary.wire_fraction)} of the wire`,
      );
    }
    const table = formatTable(
      ['protocol', 'baud', 'window', 'events', 'acked/s', 'wire max/s', 'bytes/event', 'wire used', 'failed', 'resent'],
      rows.map((r) => [
        r.protocol,
        r.baud,
        r.window,
        r.summary.events_acked,
        r.summary.events_per_s,
        r.wireEventsPerS,
        r.bytesPerEvent,
        pct(r.summary.wire_fraction),
        r.summary.events_failed,
        r.summary.retransmissions,
      ]),
    );
    const goal = rows.filter((r) => r.protocol === 'SIA-DC09' && r.window > 1);
    const lines = goal.map(
      (r) =>
        `  DC-09 at ${r.baud} baud (window ${r.window}) >= 90 % of the wire: ${pct(r.summary.wire_fraction)} ${verdict((r.summary.wire_fraction ?? 0) >= 0.9)}`,
    );
    return [
      table,
      '',
      'targets:',
      ...lines,
      '  (window 1 = one frame per ACK as most panels send; the ACK and the commit then idle the line)',
    ].join('\n');
  },
};

function pct(fraction: number | null): string {
  return fraction === null ? '-' : `${(fraction * 100).toFixed(1)} %`;
}

const modem: BenchSection = {
  name: 'modem',
  async run() {
    return (await modemFigures()).map((line) => `  ${line}`).join('\n');
  },
};

/** Add a section here and it runs with the others. */
const SECTIONS: readonly BenchSection[] = [com, modem];

async function main(): Promise<void> {
  const wanted = process.env.BENCH_SERIAL_SECTIONS?.split(',');
  print(
    `serial bench: load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (other work on this machine skews every figure)`,
  );
  for (const section of SECTIONS) {
    if (wanted && !wanted.includes(section.name)) continue;
    print(`\n== ${section.name}`);
    print(await section.run());
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`serial bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
