/**
 * docs/benchmarks.md is a reference (docs/benchmarks.md, first paragraph): every `docs/benchmarks.md
 * §Section` cited in the sources, the benches, the tests and the other docs names a section that
 * exists, and no section is named by a date or a clock time (the history of tries is git's).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else if (/\.(ts|tsx|md)$/.test(name)) out.push(path);
  }
  return out;
}

/** Section titles of a markdown file: the heading's text before a parenthesis. */
function sectionTitles(markdown: string): string[] {
  return [...markdown.matchAll(/^#{2,4} (.+)$/gm)].map((m) => m[1]!.split(' (')[0]!.trim());
}

/** `§Title` after each mention of docs/benchmarks.md, comment markers and line breaks folded. */
function citedSections(text: string): string[] {
  const flat = text.replace(/\n\s*(\*|\/\/)?\s*/g, ' ');
  const cited: string[] = [];
  for (const m of flat.matchAll(/benchmarks\.md[^§\n]{0,3}((?:§[A-Za-z][A-Za-z0-9 ]*)+)/g)) {
    for (const part of m[1]!.split('§').filter(Boolean)) cited.push(part.trim().replace(/ and$/, ''));
  }
  return cited;
}

function resolves(cited: string, titles: readonly string[]): boolean {
  return titles.some((title) => cited === title || cited.startsWith(`${title} `));
}

test('the citation reader folds comment lines and reads every section of a list', () => {
  assert.equal(citedSections(' * (docs/benchmarks.md §Journal\n * rows). Next'), ['Journal rows']);
  assert.equal(citedSections('docs/benchmarks.md §Site and §Sightings sweep model.'), [
    'Site',
    'Sightings sweep model',
  ]);
  assert.equal(citedSections('see docs/benchmarks.md.'), []);
});

test('every cited section of docs/benchmarks.md exists', () => {
  const titles = sectionTitles(readFileSync(join(root, 'docs/benchmarks.md'), 'utf8'));
  const missing: string[] = [];
  let count = 0;
  for (const dir of ['src', 'bench', 'test', 'docs']) {
    for (const file of filesUnder(join(root, dir))) {
      if (file.endsWith('benchmark-citations.test.ts')) continue; // its own examples
      for (const cited of citedSections(readFileSync(file, 'utf8'))) {
        count++;
        if (!resolves(cited, titles)) missing.push(`${file.slice(root.length)}: §${cited}`);
      }
    }
  }
  assert.ok(count >= 10, `found ${count} citations: the reader lost them`);
  assert.equal(missing, []);
});

test('docs/benchmarks.md is a reference: no section named by a date or a clock time, at most ~200 lines', () => {
  const doc = readFileSync(join(root, 'docs/benchmarks.md'), 'utf8');
  const dated = sectionTitles(doc).filter((t) => /\d{4}-\d\d-\d\d|\b\d\d:\d\d\b/.test(t));
  assert.equal(dated, []);
  assert.ok(doc.split('\n').length <= 220, 'the history of tries lives in git, not here');
});

test.run();
