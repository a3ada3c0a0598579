/**
 * The import graph of src/ and hw/, read from the TypeScript sources: which file imports which, the
 * layer table of docs/architecture.md §Layers, and the figures a review asks for (file-level cycles,
 * arrows running up the table, files over 300 lines). test/main/layers.test.ts asserts on it;
 * bench/import-graph.ts prints its figures for any checkout.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Which folders each folder may import (besides itself), in the order of the table's rows, lowest
 * first; keep in step with docs/architecture.md §Layers.
 */
export const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  core: [],
  protocols: ['core'],
  auth: ['core'],
  version: [],
  settings: ['core', 'protocols', 'auth'],
  store: ['core', 'settings'],
  init: ['core', 'auth', 'settings'],
  /** Main-thread batching: queues frames, encodes a batch, hands it to the writer's port (docs/receivers.md). */
  ingest: ['core', 'protocols', 'settings', 'store', 'writer'],
  'internal-events': ['core', 'auth', 'protocols', 'settings', 'store', 'ingest'],
  devices: ['core', 'protocols', 'store', 'internal-events'],
  tracker: ['core', 'protocols', 'settings', 'store', 'ingest', 'internal-events', 'writer'],
  'status-output': ['core', 'protocols', 'store', 'ingest', 'internal-events'],
  /**
   * The one writer of the store's file: its thread, the proxy, the group commit's database half and
   * both ends of the wire between them (docs/writer.md).
   */
  writer: ['core', 'settings', 'store'],
  outputs: ['core', 'protocols', 'settings', 'store', 'writer'],
  receivers: ['core', 'protocols', 'settings', 'store', 'ingest', 'devices', 'writer'],
  leds: ['core'],
  metrics: ['core'],
  system: ['core', 'settings', 'init', 'writer'],
  backup: ['core', 'init', 'settings', 'store', 'version'],
  /** A/B updates and the update channel (its settings section and CA files: settings). */
  update: ['core', 'init', 'settings', 'system', 'version'],
  housekeeping: ['core', 'settings', 'store', 'ingest', 'status-output', 'version'],
  'first-boot': ['core', 'auth', 'init', 'store', 'backup'],
  sim: ['core', 'protocols'],
  /** The operations both edges offer, their ports, the contract's parsers and reply bodies; no HTTP. */
  services: ['core', 'auth', 'settings', 'backup', 'metrics', 'system', 'update'],
  /** The management API: the HTTP edge of the contract. */
  api: ['core', 'auth', 'settings', 'update', 'services'],
  /** The technician's page, mounted on the API's app. */
  web: ['core', 'auth', 'settings', 'backup', 'update', 'services', 'api'],
  /** The composition root (src/main.ts, src/gateway/) and the CLI's files at the top of src/. */
  gateway: ['*'],
  root: ['*'],
  /** The hardware layer: only src/gateway/hardware.ts imports it. */
  hw: ['core', 'leds'],
};

/** Files over this many lines count as long (the house style asks for ≈50–250, none over 400). */
export const LONG_FILE_LINES = 300;

export interface ImportEdge {
  /** Repository paths with forward slashes, e.g. `src/api/app.ts`. */
  readonly from: string;
  readonly to: string;
  /** The specifier as written. */
  readonly spec: string;
}

export interface ImportGraph {
  readonly root: string;
  /** Every source file of src/ and hw/, repository paths. */
  readonly files: readonly string[];
  /** Relative imports that resolve to a source file. */
  readonly edges: readonly ImportEdge[];
  readonly lines: ReadonlyMap<string, number>;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function repoPath(root: string, path: string): string {
  return relative(root, path).split('\\').join('/');
}

/** The folder a repository path belongs to for the layer rule. */
export function unitOf(rel: string): string {
  if (rel.startsWith('hw/')) return 'hw';
  if (!rel.startsWith('src/')) return 'outside';
  const parts = rel.slice(4).split('/');
  if (parts.length > 1) return parts[0]!;
  if (parts[0] === 'version.ts' || parts[0] === 'version.js') return 'version';
  return 'root';
}

/** Relative module specifiers of a source text: static, `export … from` and dynamic imports. */
export function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
}

export function allows(from: string, to: string): boolean {
  const allowed = ALLOWED[from];
  return allowed !== undefined && (allowed.includes('*') || allowed.includes(to));
}

/** The source file a specifier names: `x.js` is `x.ts` or `x.tsx`; null for anything else (assets). */
function resolveSpec(root: string, fromFile: string, spec: string, known: ReadonlySet<string>): string | null {
  const target = repoPath(root, resolve(dirname(join(root, fromFile)), spec));
  const base = target.replace(/\.js$/, '');
  for (const candidate of [`${base}.ts`, `${base}.tsx`, target]) if (known.has(candidate)) return candidate;
  return null;
}

export function readImportGraph(root: string): ImportGraph {
  const files: string[] = [];
  for (const dir of ['src', 'hw']) files.push(...sourceFiles(join(root, dir)).map((p) => repoPath(root, p)));
  files.sort();
  const known = new Set(files);
  const edges: ImportEdge[] = [];
  const lines = new Map<string, number>();
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    lines.set(file, text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
    for (const spec of importsOf(text)) {
      const to = resolveSpec(root, file, spec, known);
      if (to !== null && to !== file) edges.push({ from: file, to, spec });
    }
  }
  return { root, files, edges, lines };
}

/**
 * Strongly connected components of more than one file (Tarjan): each is a knot of files that import
 * each other, directly or around a ring. Sorted, each listed in path order.
 */
export function fileCycles(graph: ImportGraph): string[][] {
  const next = new Map<string, string[]>();
  for (const e of graph.edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const f of graph.files) if (!index.has(f)) visit(f);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** One shortest ring through the first file of a component, for a readable failure message. */
export function ringOf(graph: ImportGraph, component: readonly string[]): string[] {
  const inside = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const e of graph.edges) {
      if (e.from !== v || !inside.has(e.to)) continue;
      if (e.to === start) {
        const ring = [start];
        for (let w = v; w !== start; w = previous.get(w)!) ring.splice(1, 0, w);
        return [...ring, start];
      }
      if (!previous.has(e.to)) {
        previous.set(e.to, v);
        queue.push(e.to);
      }
    }
  }
  return [...component];
}

/** Folders that `from` reaches through the allowed table, directly or through others. */
function allowedReach(from: string): Set<string> {
  const seen = new Set<string>();
  const todo = [...(ALLOWED[from] ?? [])];
  while (todo.length > 0) {
    const unit = todo.pop()!;
    if (unit === '*' || seen.has(unit)) continue;
    seen.add(unit);
    todo.push(...(ALLOWED[unit] ?? []));
  }
  return seen;
}

/**
 * Folder-to-folder arrows that run up the layer table: the target folder may itself import the
 * source folder (directly or through others), so the arrow closes a ring of folders. The composition
 * root and the CLI (`*`) import anything and are never a target, so they never count.
 */
export function upwardArrows(graph: ImportGraph): { arrow: string; imports: number }[] {
  const counts = new Map<string, number>();
  for (const e of graph.edges) {
    const from = unitOf(e.from);
    const to = unitOf(e.to);
    if (from === to || (ALLOWED[from] ?? []).includes('*')) continue;
    if (!allowedReach(to).has(from)) continue;
    const arrow = `${from} -> ${to}`;
    counts.set(arrow, (counts.get(arrow) ?? 0) + 1);
  }
  return [...counts].map(([arrow, imports]) => ({ arrow, imports })).sort((a, b) => a.arrow.localeCompare(b.arrow));
}

/** Files over LONG_FILE_LINES lines, longest first. */
export function longFiles(graph: ImportGraph, min = LONG_FILE_LINES): { file: string; lines: number }[] {
  return [...graph.lines]
    .filter(([, n]) => n > min)
    .map(([file, lines]) => ({ file, lines }))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
}
