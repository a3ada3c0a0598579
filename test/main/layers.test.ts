/**
 * The layering rule of docs/architecture.md §Layers, checked over the import lines of src/ and hw/:
 * each folder imports only the folders its row allows, the allowed graph itself has no cycle, no two
 * files import each other (directly or around a ring), and a route file is imported only by its own
 * edge and the composition root. Reads the TypeScript sources (test/helpers/import-graph.ts), so a
 * forbidden import fails here before any review; bench/import-graph.ts prints the same figures.
 */
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ALLOWED,
  allows,
  fileCycles,
  importsOf,
  readImportGraph,
  ringOf,
  unitOf,
  upwardArrows,
  type ImportGraph,
} from '../helpers/import-graph.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const graph = readImportGraph(root);

/** A made-up graph of files and their imports, for the tests of the checks themselves. */
function fakeGraph(imports: Record<string, string[]>): ImportGraph {
  const edges = Object.entries(imports).flatMap(([from, list]) => list.map((to) => ({ from, to, spec: to })));
  return { root: '/', files: Object.keys(imports).sort(), edges, lines: new Map() };
}

test('the import reader finds static, re-exported and dynamic relative imports, nothing else', () => {
  const text = [
    "import { a } from '../core/a.js';",
    "export { b } from './b.js';",
    "const c = await import('../store/c.js');",
    "import { d } from 'node:fs';",
    "// see 'src/e.ts'",
  ].join('\n');
  assert.equal(importsOf(text), ['../core/a.js', './b.js', '../store/c.js']);
});

test('the graph resolves `.js` specifiers to the .ts and .tsx sources', () => {
  const fromWeb = graph.edges.filter((e) => e.from === 'src/web/web-app.ts').map((e) => e.to);
  assert.ok(fromWeb.includes('src/web/routes/device.tsx'));
  assert.ok(fromWeb.includes('src/core/errors.ts'));
  assert.ok(graph.files.length > 300);
});

test('a forbidden import is reported: metrics may not import the API, services may not import it either', () => {
  assert.equal([unitOf('src/metrics/gateway-metrics.ts'), unitOf('src/api/deps.ts')], ['metrics', 'api']);
  assert.is(allows('metrics', 'api'), false);
  assert.is(allows('services', 'api'), false);
  assert.is(allows('api', 'services'), true);
  assert.is(allows('gateway', 'hw'), true);
});

test('a cycle of files is found whatever its length, and a chain without one is not', () => {
  const ring = fakeGraph({ 'a.ts': ['b.ts'], 'b.ts': ['c.ts'], 'c.ts': ['a.ts'], 'd.ts': ['a.ts'] });
  assert.equal(fileCycles(ring), [['a.ts', 'b.ts', 'c.ts']]);
  assert.equal(ringOf(ring, ['a.ts', 'b.ts', 'c.ts']), ['a.ts', 'b.ts', 'c.ts', 'a.ts']);
  const pair = fakeGraph({ 'x.ts': ['y.ts'], 'y.ts': ['x.ts'] });
  assert.equal(fileCycles(pair), [['x.ts', 'y.ts']]);
  assert.equal(fileCycles(fakeGraph({ 'a.ts': ['b.ts'], 'b.ts': ['c.ts'], 'c.ts': [] })), []);
});

test('an arrow up the table is one whose target may import its source', () => {
  const up = fakeGraph({
    'src/services/x.ts': ['src/api/y.ts'],
    'src/api/y.ts': ['src/core/z.ts'],
    'src/core/z.ts': [],
  });
  assert.equal(upwardArrows(up), [{ arrow: 'services -> api', imports: 1 }]);
});

test('every import of src/ and hw/ follows docs/architecture.md §Layers', () => {
  const broken: string[] = [];
  for (const e of graph.edges) {
    const from = unitOf(e.from);
    const to = unitOf(e.to);
    if (to === from) continue;
    if (to === 'hw' && e.from !== 'src/gateway/hardware.ts') broken.push(`${e.from} -> ${e.spec} (hw/)`);
    else if (to !== 'hw' && !ALLOWED[from]) broken.push(`${e.from}: folder ${from} has no row in ALLOWED (and docs)`);
    else if (to !== 'hw' && !allows(from, to)) broken.push(`${e.from} -> ${e.spec} (${from} -> ${to})`);
  }
  assert.equal(broken, []);
  assert.equal(upwardArrows(graph), []);
});

test('no two files import each other, directly or around a ring', () => {
  assert.equal(
    fileCycles(graph).map((component) => ringOf(graph, component).join(' -> ')),
    [],
  );
});

test('a route file is imported only by its own edge and the composition root', () => {
  const foreign: string[] = [];
  for (const e of graph.edges) {
    const routes = /^src\/(api|web)\/routes\//.exec(e.to);
    if (!routes) continue;
    const from = unitOf(e.from);
    if (from !== routes[1] && !(ALLOWED[from] ?? []).includes('*')) foreign.push(`${e.from} -> ${e.spec}`);
  }
  assert.equal(foreign, []);
});

test('the allowed graph has no cycle', () => {
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (n: string, path: string[]): void => {
    if (state.get(n) === 'done') return;
    if (state.get(n) === 'open') {
      cycles.push([...path.slice(path.indexOf(n)), n].join(' -> '));
      return;
    }
    state.set(n, 'open');
    for (const next of ALLOWED[n] ?? []) if (next !== '*') visit(next, [...path, n]);
    state.set(n, 'done');
  };
  for (const n of Object.keys(ALLOWED)) visit(n, []);
  assert.equal(cycles, []);
});

test('every folder of src/ has a row', () => {
  const units = new Set(graph.files.map(unitOf));
  assert.equal(
    [...units].filter((u) => !ALLOWED[u]),
    [],
  );
});

test.run();
