/**
 * The board description files the image installs (docs/watchdog.md): hw/udev/99-vigil.rules and
 * hw/boot/config-vigil.txt, checked line by line for the syntax udev and the Pi firmware accept,
 * and for the promises the docs make about them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const REPO = join(import.meta.dirname, '..', '..', '..');
const lines = (path: string): string[] =>
  readFileSync(join(REPO, path), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));

/** One udev rule: comma-separated KEY[{attr}] OP "value" pairs (udev(7)). */
const PAIR = /^\s*([A-Z_]+)(\{[^}]+\})?\s*(==|!=|\+=|-=|:=|=)\s*"((?:[^"\\]|\\.)*)"\s*$/;

function parseRule(rule: string): Array<[string, string, string]> {
  const pairs: Array<[string, string, string]> = [];
  let rest = rule;
  while (rest.trim() !== '') {
    const end = /"\s*(,|$)/.exec(rest.slice(rest.indexOf('"') + 1).replace(/\\./g, '__'));
    assert.ok(end, `unterminated value in: ${rule}`);
    const cut = rest.indexOf('"') + 1 + end!.index + 1;
    const match = PAIR.exec(rest.slice(0, cut));
    assert.ok(match, `not a udev key/value pair: ${rest.slice(0, cut)}`);
    pairs.push([`${match![1]}${match![2] ?? ''}`, match![3]!, match![4]!]);
    rest = rest.slice(cut).replace(/^\s*,/, '');
  }
  return pairs;
}

test('udev rules: every line parses; every rule matches before it assigns', () => {
  const rules = lines('hw/udev/99-vigil.rules').map(parseRule);
  assert.ok(rules.length >= 7);
  for (const rule of rules) {
    assert.ok(
      rule.some(([, op]) => op === '=='),
      `a rule without a match: ${JSON.stringify(rule)}`,
    );
    const keys = rule.map(([key]) => key.replace(/\{.*\}/, ''));
    for (const key of keys)
      assert.ok(['SUBSYSTEM', 'KERNEL', 'ACTION', 'ENV', 'DRIVERS', 'PROGRAM', 'SYMLINK'].includes(key), key);
  }
});

test('udev rules: the vigil group gets the GPIO sysfs files; serial names land under /dev/vigil/', () => {
  const rules = lines('hw/udev/99-vigil.rules').map(parseRule);
  const gpio = rules.filter((r) => r.some(([k, , v]) => k === 'SUBSYSTEM' && v === 'gpio'));
  assert.is(gpio.length, 2);
  for (const rule of gpio) assert.match(rule.find(([k]) => k === 'PROGRAM')![2], /chgrp -R vigil .* chmod -R g=u/);
  const links = rules.flatMap((r) => r.filter(([k]) => k === 'SYMLINK').map(([, , v]) => v));
  assert.ok(links.length >= 5);
  for (const link of links) assert.match(link, /^vigil\//);
  const modem = rules.find((r) => r.some(([, , v]) => v.startsWith('vigil/modem-')))!;
  assert.ok(
    modem.some(([k, op, v]) => k === 'ENV{ID_MM_DEVICE_IGNORE}' && op === '=' && v === '1'),
    'ModemManager keeps off',
  );
});

test('config.txt lines: filters and key=value only; UART and watchdog enabled for all boards', () => {
  const config = lines('hw/boot/config-vigil.txt');
  for (const line of config) assert.match(line, /^(\[(all|pi3|pi4|pi5|cm4)\]|[a-z_]+=[a-z0-9_=-]+)$/, line);
  const all = config.slice(
    config.indexOf('[all]') + 1,
    config.findIndex((l, i) => i > 0 && l.startsWith('[') && l !== '[all]'),
  );
  assert.ok(all.includes('enable_uart=1'));
  assert.ok(all.includes('dtparam=watchdog=on'));
  assert.is(config.at(-1), '[all]', 'ends unfiltered, so lines appended after it apply to every board');
});

test.run();
