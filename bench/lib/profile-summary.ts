/**
 * Reads a V8 .cpuprofile (node --cpu-prof; BENCH_CPU_PROF=<dir> for the benches' gateway) and
 * prints where the time went: self time per function and per source file, idle and GC apart.
 *
 *   node dist/bench/lib/profile-summary.js <file.cpuprofile> [top=25]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function shortUrl(url: string): string {
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 6);
  const nm = url.indexOf('/node_modules/');
  if (nm >= 0) return url.slice(nm + 14);
  return url.replace(/^file:\/\//, '') || '(native)';
}

export function summariseProfile(profile: Profile, top = 25): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = profile.endTime - profile.startTime;
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const [id, us] of self) {
    const frame = byId.get(id)!.callFrame;
    const name = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const file = frame.url ? shortUrl(frame.url) : frame.functionName;
    byFile.set(file, (byFile.get(file) ?? 0) + us);
  }
  const pct = (us: number): string => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
  const list = (m: Map<string, number>): string[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => `  ${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`);
  return [
    `profile: ${(total / 1e6).toFixed(1)} s wall`,
    'self time by function:',
    ...list(byFunction),
    'self time by file:',
    ...list(byFile),
  ].join('\n');
}

if (process.argv[1]?.endsWith('profile-summary.js')) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node dist/bench/lib/profile-summary.js <file.cpuprofile> [top]\n');
    process.exitCode = 2;
  } else {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    process.stdout.write(summariseProfile(profile, Number(process.argv[3] ?? 25)) + '\n');
  }
}
