/**
 * The partition sizes docs/image.md states are the layout the build uses: image/build-image.sh's
 * BOOT_MIB, SLOT_MIB and DATA_MIB, laid out as genimage-config.ts renders them (4 MiB-aligned after the
 * MBR). Changing one without the other fails here, so the docs cannot drift from the card.
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cardLayoutMib, renderGenimageConfig } from '../../image/tools/genimage-config.js';

const REPO = new URL('../../../', import.meta.url).pathname;
const script = readFileSync(`${REPO}image/build-image.sh`, 'utf8');
const docs = readFileSync(`${REPO}docs/image.md`, 'utf8');

function constant(name: string): number {
  const match = new RegExp(`^${name}=(\\d+)$`, 'm').exec(script);
  if (!match) throw new Error(`no ${name}= in image/build-image.sh`);
  return Number(match[1]);
}

const mib = (text: string) => Number(text.replace(/,/g, ''));
const built = { bootMib: constant('BOOT_MIB'), slotMib: constant('SLOT_MIB'), dataMib: constant('DATA_MIB') };

test("the partition table in docs/image.md states build-image.sh's sizes", () => {
  const row = (start: string) => {
    const line = docs.split('\n').find((l) => l.startsWith(`| ${start}`));
    if (!line) throw new Error(`no row "| ${start}" in docs/image.md`);
    return line.split('|')[3]!.trim();
  };
  assert.match(row('1 `VIGIL-BOOT`'), new RegExp(`^${built.bootMib} MiB$`));
  assert.match(row('2 slot A'), new RegExp(`^${built.slotMib} MiB partition;`));
  assert.match(row('3 slot B'), new RegExp(`^${built.slotMib} MiB$`));
  assert.match(row('4 `vigil-data`'), new RegExp(`^${built.dataMib} MiB in the image,`));
  assert.match(docs, new RegExp(`Both slots have one fixed size \\(${built.slotMib} MiB, \`SLOT_MIB\``));
});

test('the raw image size in docs/image.md §Figures is the layout genimage writes', () => {
  const figures = docs.slice(docs.indexOf('\n## Figures'));
  const match =
    /^\| raw image \| ([\d,]+) MiB \(boot ([\d,]+) MiB, slots A and B ([\d,]+) MiB each, data ([\d,]+) MiB\) \|$/m.exec(
      figures,
    );
  if (!match) throw new Error('no "| raw image | N MiB (boot …, slots A and B … each, data …) |" row in §Figures');
  const [, total, boot, slot, data] = match.map(mib) as [number, number, number, number, number];
  assert.equal({ bootMib: boot, slotMib: slot, dataMib: data }, built);
  const layout = cardLayoutMib(built);
  assert.is(total, layout.totalMib);
  assert.equal(
    layout.partitions.map((p) => [p.name, p.startMib, p.sizeMib]),
    [
      ['boot', 4, built.bootMib],
      ['slot-a', 4 + built.bootMib, built.slotMib],
      ['slot-b', 4 + built.bootMib + built.slotMib, built.slotMib],
      ['data', 4 + built.bootMib + 2 * built.slotMib, built.dataMib],
    ],
  );
  // The same sizes are what the rendered genimage configuration asks for.
  const rendered = renderGenimageConfig({ imageName: 'x.img', rootMib: 4, ...built });
  assert.match(rendered, new RegExp(`image boot\\.vfat \\{[\\s\\S]*?size = ${built.bootMib}M`));
  assert.match(rendered, new RegExp(`partition slot-b \\{[^}]*size = ${built.slotMib}M`));
  assert.match(rendered, new RegExp(`image data\\.ext4 \\{[\\s\\S]*?size = ${built.dataMib}M`));
});

test.run();
