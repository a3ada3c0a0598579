/**
 * The import graph's figures (docs/architecture.md §Layers): file-level cycles, arrows running up the
 * layer table, files over 300 lines, for this checkout or any other tree (an older commit unpacked with
 * `git archive <commit> src hw test bench | tar -x -C <dir>`). The layer table is this checkout's
 * (test/helpers/import-graph.ts), so two trees are measured against the same rule. Not timed.
 *
 *   node dist/bench/import-graph.js [root=this checkout] [--list]
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  fileCycles,
  LONG_FILE_LINES,
  longFiles,
  readImportGraph,
  ringOf,
  upwardArrows,
} from '../test/helpers/import-graph.js';

const args = process.argv.slice(2);
const list = args.includes('--list');
const root = args.find((a) => !a.startsWith('--')) ?? fileURLToPath(new URL('../../', import.meta.url));

/** Long files of test/ and bench/, which the graph (src/ and hw/) leaves out. */
function longOutside(dir: string): { file: string; lines: number }[] {
  const out: { file: string; lines: number }[] = [];
  const walk = (path: string): void => {
    if (!existsSync(path)) return;
    for (const name of readdirSync(path)) {
      const child = join(path, name);
      if (statSync(child).isDirectory()) walk(child);
      else if (/\.tsx?$/.test(name)) {
        const text = readFileSync(child, 'utf8');
        const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
        if (lines > LONG_FILE_LINES) out.push({ file: relative(root, child), lines });
      }
    }
  };
  walk(join(root, dir));
  return out.sort((a, b) => b.lines - a.lines);
}

const graph = readImportGraph(root);
const cycles = fileCycles(graph);
const up = upwardArrows(graph);
const long = longFiles(graph);
const longTests = longOutside('test');
const longBench = longOutside('bench');

console.log(`import graph of ${root}`);
console.log(`  files (src/, hw/)                       ${graph.files.length}`);
console.log(`  relative imports                        ${graph.edges.length}`);
console.log(`  file-level cycles (knots of files)      ${cycles.length} (${cycles.flat().length} files)`);
console.log(
  `  arrows running up the layer table       ${up.length} (${up.reduce((n, a) => n + a.imports, 0)} import lines)`,
);
console.log(`  files over ${LONG_FILE_LINES} lines: src/ and hw/     ${long.length}`);
console.log(`  files over ${LONG_FILE_LINES} lines: test/            ${longTests.length}`);
console.log(`  files over ${LONG_FILE_LINES} lines: bench/           ${longBench.length}`);
if (list) {
  for (const component of cycles) console.log(`cycle: ${ringOf(graph, component).join(' -> ')}`);
  for (const a of up) console.log(`up: ${a.arrow} (${a.imports} imports)`);
  for (const f of [...long, ...longTests, ...longBench]) console.log(`long: ${f.file} ${f.lines}`);
}
