/**
 * The soak bench's readers of /proc/<pid>/smaps and `node --trace-gc` output
 * (bench/lib/memory-figures.ts), on text taken from a real gateway, and on this process's own smaps.
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gcIsolate, memoryClasses, parseFullGc } from '../../bench/lib/memory-figures.js';

const SMAPS = `00400000-00b6f000 r--p 00000000 08:01 1835 /usr/bin/node
Size:               7612 kB
Rss:                6968 kB
Pss:                3484 kB
0904b000-097c0000 rw-p 00000000 00:00 0                                  [heap]
Rss:                7424 kB
1cd4db640000-1cd4db680000 rw-p 00000000 00:00 0 
Rss:                 112 kB
3e06df500000-3e06df540000 rw-p 00000000 00:00 0
Rss:                 256 kB
7fea94000000-7fea944ae000 rw-p 00000000 00:00 0 
Rss:                4748 kB
7fea944ae000-7fea98000000 ---p 00000000 00:00 0 
Rss:                   0 kB
7fead5853000-7fead5879000 r-xp 00001000 08:01 2200 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
Rss:                 152 kB
7ffe85c67000-7ffe85c88000 rw-p 00000000 00:00 0                          [stack]
Rss:                  64 kB
`;

test('smaps: V8 pages below 2^46, other anonymous memory and [stack] native, [heap] brk, paths files', () => {
  assert.equal(memoryClasses(SMAPS), { v8KiB: 112 + 256, nativeKiB: 4748 + 64, brkKiB: 7424, fileKiB: 6968 + 152 });
});

test("this process's own smaps: the classes add up to its RSS, and V8 holds some of it", () => {
  const classes = memoryClasses(readFileSync('/proc/self/smaps', 'utf8'));
  const rollup = Number(/^Rss:\s+(\d+)/m.exec(readFileSync('/proc/self/smaps_rollup', 'utf8'))?.[1]);
  const sum = classes.v8KiB + classes.nativeKiB + classes.brkKiB + classes.fileKiB;
  // Two reads a moment apart: the heap may have grown a page or two between them.
  assert.ok(Math.abs(sum - rollup) < 2048, `classes ${sum} KiB against smaps_rollup ${rollup} KiB`);
  assert.ok(classes.v8KiB > 1024, `V8 pages ${classes.v8KiB} KiB`);
  assert.ok(classes.fileKiB > 1024, `file pages ${classes.fileKiB} KiB`);
});

test('trace-gc: full collections give isolate, time, live and reserved heap; scavenges and other lines give null', () => {
  assert.equal(
    parseFullGc(
      '[27116:0x25a6e490]      170 ms: Mark-Compact 46.1 (78.5) -> 22.6 (56.4) MB, 1.01 / 0.00 ms  (+ 10.5 ms in 10 steps since start of marking) allocation failure',
    ),
    { isolate: '0x25a6e490', atMs: 170, liveMiB: 22.6, reservedMiB: 56.4 },
  );
  assert.equal(
    parseFullGc(
      '[25932:0x7fea9c0a1000]   308123 ms: Mark-Compact (reduce) 19.9 (58.0) -> 18.7 (27.0) MB, 20.1 / 0.0 ms  (average mu = 0.998) memory reducer',
    ),
    { isolate: '0x7fea9c0a1000', atMs: 308123, liveMiB: 18.7, reservedMiB: 27 },
  );
  assert.is(
    parseFullGc(
      '[27116:0x25a6e490]       34 ms: Scavenge 4.0 (4.5) -> 3.6 (5.5) MB, 0.62 / 0.00 ms  (average mu = 1.000) allocation failure;',
    ),
    null,
  );
  assert.is(parseFullGc('Vigil: data dir initialised.'), null);
  assert.is(parseFullGc(''), null);
  assert.is(
    gcIsolate('[27116:0x25a6e490]       34 ms: Scavenge 4.0 (4.5) -> 3.6 (5.5) MB, 0.62 / 0.00 ms'),
    '0x25a6e490',
  );
  assert.is(
    gcIsolate('[25932:0x7fea9c0a1000]   308123 ms: Mark-Compact (reduce) 19.9 (58.0) -> 18.7 (27.0) MB'),
    '0x7fea9c0a1000',
  );
  assert.is(gcIsolate('gw: listening on 127.0.0.1:10001'), null);
});

test.run();
