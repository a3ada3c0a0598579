/** The LED patterns and what the health registry makes of them (src/leds/patterns.ts, led-states.ts). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ComponentHealth, ComponentState } from '../../src/core/health.js';
import { DeviceActivity, DEVICE_RECENT_MS, ledStates } from '../../src/leds/led-states.js';
import {
  DARK,
  HEARTBEAT,
  STEADY,
  WAITING,
  cycleMs,
  isLit,
  troublePattern,
  type BlinkPattern,
} from '../../src/leds/patterns.js';

function c(
  name: string,
  kind: string,
  state: ComponentState = 'ok',
  metrics: ComponentHealth['metrics'] = {},
): ComponentHealth {
  return { name, kind, state, detail: null, metrics, since: 0 };
}

/** The lit/dark timeline of a pattern sampled every 100 ms over one cycle: '#' lit, '.' dark. */
function strip(pattern: BlinkPattern): string {
  let out = '';
  for (let t = 0; t < cycleMs(pattern); t += 100) out += isLit(pattern, t + 50) ? '#' : '.';
  return out;
}

const healthy = [
  c('self-check', 'self-check'),
  c('store', 'store'),
  c('rx:tcp:1', 'receiver', 'ok', { connections: 3, frames: 10 }),
];

test('dark, steady, heartbeat and waiting, drawn over time', () => {
  assert.is(isLit(DARK, 0), false);
  assert.is(isLit(STEADY, 123_456), true);
  assert.is(strip(HEARTBEAT), '##########..........');
  assert.is(strip(WAITING), '##...');
  assert.is(isLit(WAITING, 0), true);
  assert.is(isLit(WAITING, 260), false);
  assert.is(isLit(WAITING, 510), true, 'repeats');
});

test('trouble codes: N flashes then a 2 s pause; several codes one after the other, lowest first', () => {
  assert.equal(troublePattern([]), DARK);
  const one = troublePattern(['output']);
  assert.equal([one.name, one.spans], ['code 1', [300, 2000]]);
  const three = troublePattern(['portDown']);
  assert.equal(three.spans, [300, 300, 300, 300, 300, 2000]);
  assert.is(strip(three), '###...###...###' + '.'.repeat(20));
  const both = troublePattern(['store', 'objectsLost', 'store']);
  assert.equal([both.name, both.spans], ['code 2+4', [300, 300, 300, 2000, 300, 300, 300, 300, 300, 300, 300, 2000]]);
  assert.equal(troublePattern(['firstBoot']).spans.filter((_, i) => i % 2 === 0).length, 5);
});

test('all well: power heartbeat, link steady, trouble dark', () => {
  const states = ledStates(healthy, new DeviceActivity(), 0);
  assert.equal([states.power, states.link, states.trouble, states.troubles], [HEARTBEAT, STEADY, DARK, []]);
});

test('power is steady while the self-check fails', () => {
  const states = ledStates([c('self-check', 'self-check', 'failed'), ...healthy.slice(1)], new DeviceActivity(), 0);
  assert.equal(states.power, STEADY);
});

test('link: fast blink with receivers up and no device; dark with a receiver down or none configured', () => {
  const idle = [
    c('rx:tcp:1', 'receiver', 'ok', { connections: 0, frames: 0 }),
    c('rx:udp:2', 'receiver', 'ok', { connections: 0, frames: 0 }),
  ];
  assert.equal(ledStates(idle, new DeviceActivity(), 0).link, WAITING);
  assert.equal(ledStates([idle[0]!, c('rx:udp:2', 'receiver', 'failed')], new DeviceActivity(), 0).link, DARK);
  assert.equal(ledStates([idle[0]!, c('rx:tcp:3', 'receiver', 'starting')], new DeviceActivity(), 0).link, DARK);
  const silentCom = ledStates(
    [idle[0]!, c('rx:com:4', 'receiver', 'degraded', { frames: 0 })],
    new DeviceActivity(),
    0,
  );
  assert.equal(
    [silentCom.link, silentCom.troubles],
    [WAITING, ['portDown']],
    'a silent COM line is up: link blinks, trouble 3',
  );
  assert.equal(ledStates([c('self-check', 'self-check')], new DeviceActivity(), 0).link, DARK);
});

test('link: a UDP (or serial, or modem) receiver counts as connected for 15 minutes after its frames last moved', () => {
  const activity = new DeviceActivity();
  const udp = (frames: number) => [c('rx:udp:2', 'receiver', 'ok', { connections: 0, frames })];
  assert.equal(ledStates(udp(0), activity, 0).link, WAITING);
  assert.equal(ledStates(udp(1), activity, 1000).link, STEADY);
  assert.equal(ledStates(udp(1), activity, 1000 + DEVICE_RECENT_MS).link, STEADY);
  assert.equal(ledStates(udp(1), activity, 1001 + DEVICE_RECENT_MS).link, WAITING);
  assert.equal(ledStates(udp(2), activity, 2000 + DEVICE_RECENT_MS).link, STEADY);
});

test('each trouble has its code: outputs, objects lost, COM ports and modems, store, first boot', () => {
  const troubles = (extra: ComponentHealth[]) => ledStates([...healthy, ...extra], new DeviceActivity(), 0).troubles;
  assert.equal(troubles([c('out:1', 'output', 'degraded')]), ['output']);
  assert.equal(troubles([c('out:1', 'output', 'failed')]), ['output']);
  assert.equal(troubles([c('out:1', 'output', 'ok', { backlog: 999 })]), []);
  assert.equal(troubles([c('out:1', 'output', 'ok', { backlog: 1000 })]), ['output'], 'backlogged');
  assert.equal(troubles([c('tracker', 'supervision', 'ok', { supervised: 9, lost: 0 })]), []);
  assert.equal(troubles([c('tracker', 'supervision', 'ok', { supervised: 9, lost: 2 })]), ['objectsLost']);
  for (const port of [
    c('serial:/dev/ttyUSB0', 'serial-port', 'failed'),
    c('rx:com:3', 'receiver', 'failed'),
    c('rx:serial:4', 'receiver', 'failed'),
    c('modem:1', 'modem', 'degraded'),
    c('com:2', 'com-port', 'failed'),
    c('rx:modem:3', 'receiver', 'failed'),
  ]) {
    assert.equal(troubles([port]), ['portDown'], port.name);
  }
  assert.equal(troubles([c('rx:modem:3', 'receiver', 'ok')]), []);
  assert.equal(troubles([c('store', 'store', 'failed')]), ['store']);
  assert.equal(troubles([c('storage', 'storage', 'degraded')]), ['store'], 'the card low on space');
  assert.equal(troubles([c('storage', 'storage', 'ok')]), []);
  assert.equal(troubles([c('first-boot', 'first-boot', 'failed')]), ['firstBoot']);
  assert.equal(troubles([c('first-boot', 'first-boot', 'ok')]), []);
  const all = ledStates(
    [
      ...healthy,
      c('out:1', 'output', 'failed'),
      c('tracker', 'supervision', 'ok', { lost: 1 }),
      c('first-boot', 'first-boot', 'failed'),
    ],
    new DeviceActivity(),
    0,
  );
  assert.is(all.trouble.name, 'code 1+2+5');
});

test.run();
