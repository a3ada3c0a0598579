/**
 * The layering rule of docs/architecture.md §Layers, checked over the import lines of src/ and hw/:
 * each folder imports only the folders its row allows, and the allowed graph itself has no cycle
 * (src/api and src/services are one layer: the contract's ports and parsers, and the services that
 * apply them). Reads the TypeScript sources, so a forbidden import fails here before any review.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Which folders each folder may import (besides itself); keep in step with docs/architecture.md §Layers. */
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  protocols: ['core'],
  auth: ['core'],
  version: [],
  settings: ['core', 'protocols', 'auth'],
  store: ['core', 'settings'],
  init: ['core', 'auth', 'settings'],
  ingest: ['core', 'protocols', 'settings', 'store'],
  'internal-events': ['core', 'auth', 'protocols', 'settings', 'store', 'ingest'],
  devices: ['core', 'protocols', 'store', 'internal-events'],
  tracker: ['core', 'protocols', 'settings', 'store', 'ingest', 'internal-events'],
  'status-output': ['core', 'protocols', 'store', 'ingest', 'internal-events'],
  outputs: ['core', 'protocols', 'settings', 'store', 'writer'],
  /** The one writer of the store's file: its thread, its commands, the proxy (docs/writer.md). */
  writer: ['core', 'store', 'ingest'],
  receivers: ['core', 'protocols', 'settings', 'store', 'ingest', 'devices'],
  leds: ['core'],
  metrics: ['core'],
  system: ['core', 'settings', 'init', 'ingest'],
  backup: ['core', 'init', 'settings', 'store', 'version'],
  update: ['core', 'init', 'system', 'version'],
  housekeeping: ['core', 'settings', 'store', 'ingest', 'status-output', 'version'],
  'first-boot': ['core', 'auth', 'init', 'store', 'backup'],
  sim: ['core', 'protocols'],
  api: ['core', 'auth', 'settings', 'services', 'update'],
  services: ['core', 'auth', 'backup', 'metrics', 'system', 'update', 'api'],
  web: ['core', 'auth', 'settings', 'backup', 'update', 'api', 'services'],
  /** The composition root (src/main.ts, src/gateway/) and the CLI's files at the top of src/. */
  gateway: ['*'],
  root: ['*'],
  /** The hardware layer: only src/gateway/hardware.ts imports it. */
  hw: ['core', 'leds'],
};

/** Imports that break the layers today, each with its reason (none: keep it so). */
const KNOWN_BREAKS = new Set<string>([]);

/** One layer made of two folders that use each other (docs/architecture.md §Layers). */
const ONE_LAYER = new Set(['api', 'services']);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

/** The folder a repository path belongs to for this rule. */
function unitOf(path: string): string {
  const rel = relative(root, path).split('\\').join('/');
  if (rel.startsWith('hw/')) return 'hw';
  if (!rel.startsWith('src/')) return 'outside';
  const parts = rel.slice(4).split('/');
  if (parts.length > 1) return parts[0]!;
  if (parts[0] === 'version.ts' || parts[0] === 'version.js') return 'version';
  return 'root';
}

/** Relative module specifiers of a source text: static, `export … from` and dynamic imports. */
function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
}

function allows(from: string, to: string): boolean {
  const allowed = ALLOWED[from];
  return allowed !== undefined && (allowed.includes('*') || allowed.includes(to));
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

test('a forbidden import is reported: metrics may not import the API', () => {
  const from = unitOf(join(root, 'src/metrics/gateway-metrics.ts'));
  const to = unitOf(resolve(join(root, 'src/metrics'), '../api/status-body.js'));
  assert.equal([from, to], ['metrics', 'api']);
  assert.is(allows(from, to), false);
});

test('every import of src/ and hw/ follows docs/architecture.md §Layers', () => {
  const broken: string[] = [];
  for (const dir of ['src', 'hw']) {
    for (const file of sourceFiles(join(root, dir))) {
      const from = unitOf(file);
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        const target = resolve(dirname(file), spec);
        const to = unitOf(target);
        if (to === from) continue;
        const rel = relative(root, file);
        if (KNOWN_BREAKS.has(`${rel} -> ${spec}`)) continue;
        if (to === 'hw' && rel !== join('src', 'gateway', 'hardware.ts')) broken.push(`${rel} -> ${spec} (hw/)`);
        else if (to !== 'hw' && !ALLOWED[from]) broken.push(`${rel}: folder ${from} has no row in ALLOWED (and docs)`);
        else if (to !== 'hw' && !allows(from, to)) broken.push(`${rel} -> ${spec} (${from} -> ${to})`);
      }
    }
  }
  assert.equal(broken, []);
});

test('the allowed graph has no cycle (api and services counted as one layer)', () => {
  const node = (unit: string): string => (ONE_LAYER.has(unit) ? 'api+services' : unit);
  const edges = new Map<string, Set<string>>();
  for (const [from, list] of Object.entries(ALLOWED)) {
    for (const to of list) {
      if (to === '*' || node(to) === node(from)) continue;
      const set = edges.get(node(from)) ?? new Set<string>();
      set.add(node(to));
      edges.set(node(from), set);
    }
  }
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (n: string, path: string[]): void => {
    if (state.get(n) === 'done') return;
    if (state.get(n) === 'open') {
      cycles.push([...path.slice(path.indexOf(n)), n].join(' -> '));
      return;
    }
    state.set(n, 'open');
    for (const next of edges.get(n) ?? []) visit(next, [...path, n]);
    state.set(n, 'done');
  };
  for (const n of edges.keys()) visit(n, []);
  assert.equal(cycles, []);
});

test.run();
