/**
 * The confirmation and rollback logic (src/update/update-monitor.ts) against the fake rauc and real files:
 * an ordinary start is marked good at once; a trial slot only after the grace period of health; a gap in
 * health starts the grace again; a box that booted the old slot after an install records, journals and
 * shows the rollback (trouble LED) until it is acknowledged, with what happened on the slot it left (the
 * gateway's runs there, the trial timer's reason when it left one, reported once) and nothing about runs on
 * other slots; each event is journaled once across restarts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { systemClock } from '../../src/core/clock.js';
import { HealthRegistry } from '../../src/core/health.js';
import { silentLogger } from '../../src/core/logger.js';
import { DeviceActivity, ledStates } from '../../src/leds/led-states.js';
import {
  endedRun,
  failedStart,
  runRecordPath,
  startedRun,
  writeRunRecord,
  type RunRecord,
} from '../../src/system/run-record.js';
import type { Principal } from '../../src/services/principal.js';
import { acknowledgeRollback, updateFacts } from '../../src/services/update-service.js';
import { UpdateMonitor } from '../../src/update/update-monitor.js';
import { readUpdateRecord, writeUpdateRecord, type InstallRecord } from '../../src/update/update-record.js';
import { UpdateSystem } from '../../src/update/update-system.js';
import { fakeBox, type FakeBox } from '../helpers/rauc-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';

const TRIAL_B = 'BOOT_ORDER=B A\nBOOT_A_LEFT=3\nBOOT_B_LEFT=2\nBOOT_A_TRIAL=0\nBOOT_B_TRIAL=1\nEND=1\n';
const FELL_BACK = 'BOOT_ORDER=A B\nBOOT_A_LEFT=3\nBOOT_B_LEFT=0\nBOOT_A_TRIAL=0\nBOOT_B_TRIAL=1\nEND=1\n';
const GRANTED: Principal = { subject: 'user:7', userId: 7, scopes: new Set(['system_update']), visibleReceivers: null };
const NOT_GRANTED: Principal = { ...GRANTED, scopes: new Set(['settings', 'users']) };

let dir: ReturnType<typeof tempDir>;
let box: FakeBox;
let health: HealthRegistry;
let journal: string[];
let healthy: { self: boolean; receivers: boolean };
let bootId: string;
let monitor: UpdateMonitor | null;

function system(graceSeconds = 0.4): UpdateSystem {
  return new UpdateSystem({
    dataDir: join(dir.path, 'data'),
    version: '1.3.0',
    clock: systemClock,
    logger: silentLogger,
    rauc: { bin: box.rauc },
    cmdlinePath: box.cmdline,
    bootEnvPath: box.bootEnv,
    bootId: () => bootId,
    graceSeconds,
  });
}

async function startMonitor(s: UpdateSystem): Promise<UpdateMonitor> {
  monitor = new UpdateMonitor({
    system: s,
    health,
    selfCheckPassing: () => healthy.self,
    receiversListening: () => healthy.receivers,
    journal: (type, detail) => journal.push(`${type}: ${detail}`),
    intervalMs: 50,
  });
  await monitor.start();
  return monitor;
}

const pending = (slot: 'A' | 'B', journaled: InstallRecord['journaled'] = ['update_installed']): InstallRecord => ({
  from_version: '1.2.0',
  to_version: '1.3.0',
  slot,
  installed_at: '2026-11-26T12:00:00.000Z',
  boot_id: 'boot-1',
  outcome: 'pending',
  reason: null,
  journaled,
  acknowledged_at: null,
});

const INSTALLED = Date.parse('2026-11-26T12:00:00.000Z');

/**
 * `last-run.json` as the gateway and `vigil record-stop` leave it: the old slot's own clean stop after the
 * install (the reboot into the new slot), then `runs` on the new slot.
 */
function runsOn(
  slot: 'A' | 'B',
  runs: Array<'never started' | 'stopped'>,
  other: 'A' | 'B' = slot === 'A' ? 'B' : 'A',
) {
  let record: RunRecord = endedRun(
    startedRun(null, { bootId: 'boot-1', pid: 9, now: INSTALLED - 60_000, invocation: 'i-0', slot: other }),
    'clean stop',
    'stopped cleanly',
    INSTALLED + 5_000,
  );
  runs.forEach((run, i) => {
    const at = INSTALLED + 60_000 * (i + 1);
    const start = { bootId: `boot-new-${Math.floor(i / 5)}`, pid: 100 + i, now: at, invocation: `i-${i + 1}`, slot };
    record =
      run === 'never started'
        ? failedStart(record, { ...start, how: 'crash', detail: 'exited with status 1' })
        : endedRun(startedRun(record, start), 'clean stop', 'stopped cleanly', at + 30_000);
  });
  writeRunRecord(runRecordPath(join(dir.path, 'data')), record);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(20);
  }
}

test.before.each(() => {
  dir = tempDir();
  box = fakeBox(join(dir.path, 'box'));
  health = new HealthRegistry();
  journal = [];
  healthy = { self: true, receivers: true };
  bootId = 'boot-2';
  monitor = null;
});
test.after.each(async () => {
  await monitor?.stop();
  dir.remove();
});

test('an ordinary start marks the booted slot good as soon as the self-check passes', async () => {
  healthy.self = false;
  await startMonitor(system(60));
  await sleep(200);
  assert.equal(box.calls(), [], 'not before the self-check passes');
  healthy.self = true;
  await until(() => box.calls().length > 0);
  await sleep(150);
  assert.equal(box.calls(), ['mark-good A'], 'once, without the trial grace');
  assert.equal(journal, []);
});

test('a trial slot is confirmed only after the grace period of health, and the record says so', async () => {
  box.boot('B', TRIAL_B);
  writeUpdateRecord(join(dir.path, 'data'), { install: pending('B') });
  healthy.receivers = false;
  const s = system(0.4);
  await startMonitor(s);
  assert.equal(journal, ['update_activated: version 1.3.0 booted in slot B']);
  await sleep(600);
  assert.equal(box.calls(), [], 'a receiver that is not listening keeps it unconfirmed');
  healthy.receivers = true;
  const healthyAt = Date.now();
  await until(() => box.calls().length > 0);
  assert.ok(Date.now() - healthyAt >= 380, 'the grace period is waited');
  assert.equal(box.calls(), ['mark-good B']);
  await until(() => journal.length === 2);
  assert.match(readFileSync(box.bootEnv, 'utf8'), /BOOT_B_TRIAL=0/);
  assert.equal(journal[1], 'update_confirmed: version 1.3.0 in slot B');
  assert.equal(readUpdateRecord(s.dataDir).install?.outcome, 'confirmed');
});

test('a gap in health starts the grace period again', async () => {
  box.boot('B', TRIAL_B);
  writeUpdateRecord(join(dir.path, 'data'), { install: pending('B') });
  await startMonitor(system(0.5));
  await sleep(300);
  healthy.self = false;
  await sleep(120);
  healthy.self = true;
  const back = Date.now();
  await until(() => box.calls().length > 0);
  assert.ok(Date.now() - back >= 450, `confirmed ${Date.now() - back} ms after health came back`);
});

test('booting the old slot after an install is a rollback: recorded, journaled, trouble LED until acknowledged', async () => {
  box.boot('A', FELL_BACK);
  writeUpdateRecord(join(dir.path, 'data'), { install: pending('B') });
  mkdirSync(join(dir.path, 'data'), { recursive: true });
  runsOn('B', Array(7).fill('never started'));
  const s = system();
  await startMonitor(s);
  const record = readUpdateRecord(s.dataDir).install!;
  assert.is(record.outcome, 'rolled_back');
  // What B did, from B's own runs; A's clean stop before the reboot is not part of it.
  assert.is(
    record.reason,
    "version 1.3.0 in slot B never started the gateway: 7 runs over 2 boots, each ended before the gateway ran (exited with status 1); the box returned to slot A after B's boot tries ran out",
  );
  assert.equal(journal, [`update_rolled_back: ${record.reason}`]);
  const component = health.get('update')!;
  assert.equal([component.kind, component.state], ['update', 'degraded']);
  assert.equal(ledStates(health.snapshot(), new DeviceActivity(), Date.now()).troubles, ['updateRolledBack']);

  const deps = {
    clock: systemClock,
    logger: silentLogger,
    update: { system: s, reconcile: () => monitor!.reconcile() },
  };
  assert.is((await acknowledgeRollback(deps, NOT_GRANTED)).kind, 'forbidden', 'only system_update acknowledges');
  assert.is(health.get('update')!.state, 'degraded');
  const ack = await acknowledgeRollback(deps, GRANTED);
  assert.is(ack.kind, 'ok');
  assert.is(health.get('update')!.state, 'ok');
  assert.equal(ledStates(health.snapshot(), new DeviceActivity(), Date.now()).troubles, []);
  assert.is((await acknowledgeRollback(deps, GRANTED)).kind, 'nothing', 'twice: nothing left to acknowledge');

  await monitor!.stop();
  await startMonitor(system());
  assert.equal(journal.length, 1, 'a restart journals nothing again');
  assert.is(health.get('update')!.state, 'ok');
});

test('an install waiting for its reboot is not a rollback while the box has not rebooted', async () => {
  writeUpdateRecord(join(dir.path, 'data'), { install: pending('B') });
  bootId = 'boot-1';
  const s = system();
  await startMonitor(s);
  assert.is(readUpdateRecord(s.dataDir).install?.outcome, 'pending');
  assert.match(health.get('update')!.detail ?? '', /installed in slot B; it starts at the next reboot/);
});

test('an install made by the CLI while the gateway runs is journaled by the running gateway', async () => {
  await startMonitor(system());
  writeUpdateRecord(join(dir.path, 'data'), { install: pending('B', []) });
  await until(() => journal.length > 0);
  assert.equal(journal, ['update_installed: 1.2.0 -> 1.3.0 in slot B']);
  await sleep(150);
  assert.equal(journal.length, 1, 'once');
});

test('activated is journaled once: a gateway restart on the trial slot does not repeat it', async () => {
  box.boot('B', TRIAL_B);
  writeUpdateRecord(join(dir.path, 'data'), { install: pending('B') });
  healthy.self = false;
  await startMonitor(system(60));
  await monitor!.stop();
  await startMonitor(system(60));
  assert.equal(journal, ['update_activated: version 1.3.0 booted in slot B']);
});

/** As /usr/lib/vigil/trial-deadline writes it (image/overlay), as user vigil into the data dir. */
function trialTimerWrote(line: string): string {
  const systemDir = join(dir.path, 'data', 'system');
  mkdirSync(systemDir, { recursive: true });
  writeFileSync(join(systemDir, 'rollback-reason.json'), `${line}\n`);
  return systemDir;
}

test("the trial timer's reason goes into the record, the event, GET /api/system's facts and the Status line, once", async () => {
  box.boot('A', FELL_BACK);
  writeUpdateRecord(join(dir.path, 'data'), { install: pending('B') });
  const systemDir = trialTimerWrote(
    '{"slot":"B","reason":"slot B was not confirmed healthy within 15min after boot; rolling back","at":"2026-11-26T12:20:00Z"}',
  );
  runsOn('B', ['stopped']);
  const s = system();
  await startMonitor(s);
  const record = readUpdateRecord(s.dataDir).install!;
  assert.is(
    record.reason,
    'version 1.3.0 in slot B ran the gateway but it was never confirmed healthy (last run clean stop: stopped cleanly); the trial timer marked B bad and rebooted into A: slot B was not confirmed healthy within 15min after boot; rolling back (2026-11-26T12:20:00Z)',
  );
  assert.equal(journal, [`update_rolled_back: ${record.reason}`]);
  const facts = await updateFacts({
    clock: systemClock,
    logger: silentLogger,
    update: { system: s, reconcile: () => undefined },
  });
  assert.is(facts.update?.reason, record.reason, 'GET /api/system reports it');
  assert.is(health.get('update')!.detail, `update rolled back: ${record.reason}`, 'the Status view shows it');
  assert.not.ok(existsSync(join(systemDir, 'rollback-reason.json')), 'moved aside once recorded');
  assert.match(readFileSync(join(systemDir, 'rollback-reason.reported.json'), 'utf8'), /not confirmed healthy/);

  await monitor!.stop();
  trialTimerWrote('{"slot":"B","reason":"a stale second copy"}');
  await startMonitor(system());
  assert.equal(journal.length, 1, 'a restart journals nothing again');
  assert.is(readUpdateRecord(s.dataDir).install!.reason, record.reason, 'a reason after the rollback changes nothing');
  assert.not.ok(existsSync(join(systemDir, 'rollback-reason.json')), 'and is moved aside too');
});

test("a trial timer's reason about another slot, or not JSON, is not put on this install", async () => {
  box.boot('A', FELL_BACK);
  writeUpdateRecord(join(dir.path, 'data'), { install: pending('B') });
  const systemDir = trialTimerWrote('{"slot":"A","reason":"slot A was not confirmed"}');
  const s = system();
  await startMonitor(s);
  assert.not.match(readUpdateRecord(s.dataDir).install!.reason ?? '', /trial timer/);
  assert.not.ok(existsSync(join(systemDir, 'rollback-reason.json')));

  await monitor!.stop();
  writeUpdateRecord(s.dataDir, { install: pending('B') });
  trialTimerWrote('vigil: gave up on B');
  await startMonitor(system());
  assert.match(
    readUpdateRecord(s.dataDir).install!.reason ?? '',
    /the trial timer marked B bad and rebooted into A: vigil: gave up on B$/,
  );
});

test('no run recorded on the new slot: it never got as far as the gateway', async () => {
  box.boot('A', FELL_BACK);
  writeUpdateRecord(join(dir.path, 'data'), { install: pending('B') });
  mkdirSync(join(dir.path, 'data'), { recursive: true });
  runsOn('B', []);
  const s = system();
  await startMonitor(s);
  assert.is(
    readUpdateRecord(s.dataDir).install!.reason,
    "version 1.3.0 in slot B never started the gateway: no run of it was recorded on that slot (the kernel or the system stopped before it); the box returned to slot A after B's boot tries ran out",
  );
});

test('a confirmed slot that later stops booting is a rollback too, told as confirmed then failed', async () => {
  box.boot('A', FELL_BACK);
  const confirmed: InstallRecord = {
    ...pending('B', ['update_installed', 'update_activated', 'update_confirmed']),
    outcome: 'confirmed',
    reason: 'healthy for 120 s',
  };
  writeUpdateRecord(join(dir.path, 'data'), { install: confirmed });
  mkdirSync(join(dir.path, 'data'), { recursive: true });
  runsOn('B', ['stopped', 'stopped']);
  const s = system();
  await startMonitor(s);
  const record = readUpdateRecord(s.dataDir).install!;
  assert.is(record.outcome, 'rolled_back');
  assert.match(record.reason ?? '', /^version 1\.3\.0 in slot B was confirmed, then failed: its last run clean stop/);
  assert.equal(journal, [`update_rolled_back: ${record.reason}`]);
});

test.run();
