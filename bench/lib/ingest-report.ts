/**
 * The ingest bench's report (bench/ingest.ts): one line per measured case as it ends, then the whole
 * table, Vigil against the references, the throughput goals on the machine's own disk and, for every
 * flush latency the run used (BENCH_FSYNC_US, slowsync.ts), Vigil against the flush limit, the
 * durable floor and the store-nothing receiver.
 *
 * The flush limit: the most a receiver that commits one flush at a time can ACK when every device
 * keeps one message in flight and gets its ACK only after the commit that holds it. A commit takes C
 * (the durable floor's time per commit of `devices` rows, under the same shim in the same run); the
 * whole fleet takes R to turn its ACKs around into new messages (devices / the store-nothing
 * receiver's rate at the same fleet: the codec, the sockets and the simulator with nothing stored).
 * Commits are serial (one file, one writer; an SD card flushes one request at a time), so a device
 * answered by one commit can be in the next only if that one starts after it came back. If the fleet
 * comes back within a commit (R ≤ C) the best is to wait for all of it: devices / (C + R) a second;
 * if not, the best is halves taking turns, each in every other commit: devices / (2 C). So the limit
 * is devices / (C + min(C, R)), and never more than the store-nothing rate itself.
 */
import type { FloorResult } from './durable-floor.js';
import type { PhaseResult } from './run-phase.js';
import { flushLabel } from './slowsync.js';
import { formatTable, verdict } from './table.js';

export interface Case {
  readonly transport: 'tcp' | 'udp';
  readonly devices: number;
  readonly aes: boolean;
  /** Paced at half the rate the same saturating case reached (ACK latency under load, not at the limit). */
  readonly paced: boolean;
}

export interface Row extends PhaseResult, Case {
  readonly build: string;
  readonly mode: string;
  readonly floor: FloorResult | null;
  /** The flush latency the shim added to every process of the case (µs; 0: the machine's own disk). */
  readonly fsyncUs: number;
}

export const REFERENCE_LABEL = 'nothing';
export const MINIMUM_LABEL = 'minimum';
/** The durable minimum with its commit in the socket thread (BENCH_INLINE=1; not a design the issue allows). */
export const INLINE_LABEL = 'inline';

function print(text: string): void {
  process.stdout.write(text + '\n');
}

const HEADER = [
  'build',
  'flush µs',
  'transport',
  'devices',
  'crypto',
  'mode',
  'acked/s',
  'p50 ms',
  'p99 ms',
  'max ms',
  'cpu µs/ev',
  'bytes/ev',
  'ev/commit',
  'commit ms',
  'floor/s',
  'vs floor',
  'floor B/ev',
  'floor cpu µs/ev',
  'sim cpu',
  'gw cpu',
  'other cpu',
  'load',
  'nak+duh',
  'timeouts',
];

function cells(r: Row): (string | number)[] {
  return [
    r.build,
    r.fsyncUs,
    r.transport,
    r.devices,
    r.aes ? 'AES' : 'plain',
    r.mode,
    r.ackedPerS,
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    r.max.toFixed(1),
    r.cpuUsPerEvent,
    r.bytesPerEvent,
    r.commits?.eventsPerCommit ?? '-',
    r.commits?.commitMs ?? '-',
    r.floor?.eventsPerS ?? '-',
    r.floor ? (r.ackedPerS / r.floor.eventsPerS).toFixed(2) : '-',
    r.floor?.bytesPerEvent ?? '-',
    r.floor?.cpuUsPerEvent ?? '-',
    `${r.simCpu}%`,
    `${r.gatewayCpu}%`,
    `${r.otherCpu}%`,
    r.load,
    r.naks + r.duhs,
    r.timeouts,
  ];
}

/** One row as the bench measured it (the table's data line alone). */
export function caseLine(r: Row): string {
  return formatTable(HEADER, [cells(r)]).split('\n')[2]!;
}

/** One run of a repeated case, for the spread under its median row. */
export function runFigures(r: PhaseResult): string {
  return `${r.ackedPerS}/s ${r.cpuUsPerEvent} µs ${r.bytesPerEvent} B`;
}

type Finder = (build: string, fsyncUs: number, transport: string, devices: number, aes: boolean) => Row | undefined;

function finder(rows: readonly Row[]): Finder {
  return (build, fsyncUs, transport, devices, aes) =>
    rows.find(
      (r) =>
        r.build === build &&
        r.fsyncUs === fsyncUs &&
        r.transport === transport &&
        r.devices === devices &&
        r.aes === aes &&
        !r.paced,
    );
}

/** Events/s the fleet could ACK at most, one flush at a time (module comment); null without its inputs. */
export function flushLimit(vigil: Row, nothing: Row | undefined): number | null {
  if (!vigil.floor || !nothing || nothing.ackedPerS <= 0 || vigil.floor.commitsPerS <= 0) return null;
  const commitS = 1 / vigil.floor.commitsPerS;
  const roundTripS = vigil.devices / nothing.ackedPerS;
  return Math.round(Math.min(nothing.ackedPerS, vigil.devices / (commitS + Math.min(commitS, roundTripS))));
}

export function printReport(rows: readonly Row[], last: string, fsyncList: readonly number[]): void {
  print('\n' + formatTable(HEADER, rows.map(cells)));
  const find = finder(rows);
  printReferences(rows, last, find);
  if (fsyncList.includes(0)) printThroughputGoals(rows, last);
  if (fsyncList.some((us) => us > 0)) printSlowStorage(rows, last, fsyncList, find);
  print(
    '  (bytes/ev: /proc/<gateway>/io write_bytes per ACKed event, all threads; floor B/ev and floor cpu µs/ev the same for the bare loop)',
  );
  print(
    '  (sim cpu near 100% means the simulator, not the gateway, set the pace; other cpu = the rest of the machine, noise; load: 1-minute load average)',
  );
}

function printReferences(rows: readonly Row[], last: string, find: Finder): void {
  const reference = rows.filter((r) => r.build === REFERENCE_LABEL);
  if (reference.length === 0) return;
  print(`\nVigil (build "${last}") against the store-nothing reference, same simulator, same pinning, same flush:`);
  for (const ref of reference) {
    const vigil = find(last, ref.fsyncUs, ref.transport, ref.devices, ref.aes);
    if (!vigil) continue;
    const name = `${flushLabel(ref.fsyncUs)}, ${ref.transport.toUpperCase()} ${ref.aes ? 'AES-128' : 'plain'}, ${ref.devices} ${ref.transport === 'udp' ? 'senders' : 'connections'}`;
    print(
      `  ${name.padEnd(46)} Vigil ${String(vigil.ackedPerS).padStart(6)}/s  store-nothing ${String(ref.ackedPerS).padStart(6)}/s  ratio ${(vigil.ackedPerS / ref.ackedPerS).toFixed(2)}  (cpu µs/ev ${vigil.cpuUsPerEvent} vs ${ref.cpuUsPerEvent})`,
    );
    for (const [label, name2] of [
      [MINIMUM_LABEL, 'durable minimum'],
      [INLINE_LABEL, 'minimum, commit inline'],
    ] as const) {
      const other = find(label, ref.fsyncUs, ref.transport, ref.devices, ref.aes);
      if (other)
        print(
          `  ${''.padEnd(46)} ${name2} ${String(other.ackedPerS).padStart(6)}/s  Vigil / it ${(vigil.ackedPerS / other.ackedPerS).toFixed(2)}  (cpu µs/ev ${other.cpuUsPerEvent}, p99 ${other.p99.toFixed(2)} ms)`,
        );
    }
  }
}

/** The throughput goals on the machine's own disk (docs/benchmarks.md §Current figures against the goals). */
function printThroughputGoals(rows: readonly Row[], last: string): void {
  const find = (t: string, devices: number, aes: boolean, paced = false): Row | undefined =>
    rows.find(
      (r) =>
        r.build === last &&
        r.fsyncUs === 0 &&
        r.transport === t &&
        r.devices === devices &&
        r.aes === aes &&
        r.paced === paced,
    );
  const goal = (
    label: string,
    r: Row | undefined,
    value: (r: Row) => number,
    ok: (v: number) => boolean,
    unit = 'events/s',
  ): void => {
    if (r)
      print(
        `  ${label.padEnd(44)} ${value(r)} ${unit} ${verdict(ok(value(r)))}${r.floor ? ` (floor ${r.floor.eventsPerS}/s, ratio ${(r.ackedPerS / r.floor.eventsPerS).toFixed(2)})` : ''}`,
      );
  };
  const rate = (r: Row): number => r.ackedPerS;
  const p99 = (r: Row): number => Number(r.p99.toFixed(2));
  print(`\nthroughput goals on the machine's own disk, build "${last}":`);
  goal('TCP 1 connection >= 2,500', find('tcp', 1, false), rate, (v) => v >= 2500);
  goal('TCP 10 connections >= 20,000', find('tcp', 10, false), rate, (v) => v >= 20_000);
  goal('TCP 100 connections plain >= 40,000', find('tcp', 100, false), rate, (v) => v >= 40_000);
  goal('TCP 100 connections AES-128 >= 17,000', find('tcp', 100, true), rate, (v) => v >= 17_000);
  goal('UDP 10 senders >= 20,000', find('udp', 10, false), rate, (v) => v >= 20_000);
  goal(
    'CPU per event, TCP 100 plain <= 15 µs',
    find('tcp', 100, false),
    (r) => r.cpuUsPerEvent,
    (v) => v <= 15,
    'µs',
  );
  goal('ACK p99, TCP 100 plain saturating < 5 ms', find('tcp', 100, false), p99, (v) => v < 5, 'ms');
  goal('ACK p99, TCP 100 plain paced at half < 5 ms', find('tcp', 100, false, true), p99, (v) => v < 5, 'ms');
}

const SLOW_HEADER = [
  'flush',
  'case',
  'Vigil/s',
  'flush limit',
  'V/limit',
  'floor/s',
  'minimum/s',
  'nothing/s',
  'V/nothing',
  'V/own disk',
  'p99 ms',
  'B/ev',
  'floor B/ev',
  'load',
];

/**
 * Vigil against the flush limit, the durable floor and the store-nothing receiver at every latency,
 * and the slow-storage goals: 1 device ≥ 0.9 of the flush limit, 10 devices ≥ 0.8 of it, 100 devices
 * ≥ 0.9 of the same build's rate on the machine's own disk in the same run and ahead of store-nothing.
 */
function printSlowStorage(rows: readonly Row[], last: string, fsyncList: readonly number[], find: Finder): void {
  const table: (string | number)[][] = [];
  const goals: string[] = [];
  const ratio = (a: number, b: number | null | undefined): string => (b ? (a / b).toFixed(2) : '-');
  for (const us of fsyncList) {
    for (const vigil of rows.filter((r) => r.build === last && r.fsyncUs === us && !r.paced)) {
      const at = (build: string): Row | undefined => find(build, us, vigil.transport, vigil.devices, vigil.aes);
      const nothing = at(REFERENCE_LABEL);
      const ownDisk = find(last, 0, vigil.transport, vigil.devices, vigil.aes);
      const limit = flushLimit(vigil, nothing);
      const name = `${vigil.transport.toUpperCase()} ${vigil.devices}${vigil.aes ? ' AES' : ''}`;
      table.push([
        flushLabel(us),
        name,
        vigil.ackedPerS,
        limit ?? '-',
        ratio(vigil.ackedPerS, limit),
        vigil.floor?.eventsPerS ?? '-',
        at(MINIMUM_LABEL)?.ackedPerS ?? '-',
        nothing?.ackedPerS ?? '-',
        ratio(vigil.ackedPerS, nothing?.ackedPerS),
        us === 0 ? '-' : ratio(vigil.ackedPerS, ownDisk?.ackedPerS),
        vigil.p99.toFixed(1),
        vigil.bytesPerEvent,
        vigil.floor?.bytesPerEvent ?? '-',
        vigil.load,
      ]);
      if (us === 0 || vigil.aes) continue;
      if (vigil.devices === 1 && limit)
        goals.push(
          `${flushLabel(us)}, ${name}: ${ratio(vigil.ackedPerS, limit)} of the flush limit (goal 0.9) ${verdict(vigil.ackedPerS >= 0.9 * limit)}`,
        );
      if (vigil.devices === 10 && limit)
        goals.push(
          `${flushLabel(us)}, ${name}: ${ratio(vigil.ackedPerS, limit)} of the flush limit (goal 0.8) ${verdict(vigil.ackedPerS >= 0.8 * limit)}`,
        );
      if (vigil.devices === 100 && ownDisk)
        goals.push(
          `${flushLabel(us)}, ${name}: ${ratio(vigil.ackedPerS, ownDisk.ackedPerS)} of its own-disk rate (goal 0.9) ${verdict(vigil.ackedPerS >= 0.9 * ownDisk.ackedPerS)}` +
            (nothing
              ? `, ${ratio(vigil.ackedPerS, nothing.ackedPerS)} of store-nothing (goal > 1) ${verdict(vigil.ackedPerS > nothing.ackedPerS)}`
              : ''),
        );
    }
  }
  print(`\nslow storage, build "${last}" (every process of a flush latency under the same shim):`);
  print(formatTable(SLOW_HEADER, table));
  if (goals.length > 0) print(`slow-storage goals:\n  ${goals.join('\n  ')}`);
}
