import { loadavg } from 'node:os';

/** Plain-text tables for the benchmarks' final reports (right-aligned numbers, one header rule). */
export function formatTable(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [header, ...rows].map((row) => row.map((c) => String(c)));
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i]?.length ?? 0)));
  const line = (row: readonly string[]): string =>
    row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** The middle value (the upper one of the two middles for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The three load averages, as a bench prints them beside its figures ("1.93 3.52 3.56"). */
export function loadAverages(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

/** "ok" / "MISSED" against a target, for the summary lines. */
export function verdict(ok: boolean): string {
  return ok ? 'ok' : 'MISSED';
}

/** CPU use of this process between two calls, as a percentage of one core. */
export function cpuMeter(): () => number {
  let last = process.cpuUsage();
  let at = performance.now();
  return () => {
    const now = performance.now();
    const used = process.cpuUsage(last);
    last = process.cpuUsage();
    const pct = ((used.user + used.system) / 1000 / Math.max(1, now - at)) * 100;
    at = now;
    return pct;
  };
}
