/**
 * node dist/image/tools/update-check.js --image IMG --bundle-b B.raucb --bundle-c C.raucb --work DIR
 * Proves A/B system updates on the emulated board, booted through U-Boot with loopback-only forwards,
 * printing each step with its time (docs/image.md "update-check", issue "Proof"):
 *   1. a fresh card comes up healthy on slot A (power cut twice while first boot grows the data
 *      partition, and it still ends with the whole card); DC-09 events are ACKed;
 *   2. bundle B (version bumped, one extra test migration) installed through the API, reboot, B healthy
 *      and confirmed by the gateway itself, A's events all there;
 *   3. bundle C (a gateway that never starts) installed through the API: the box returns to B by itself
 *      (U-Boot's tries), and the gateway journals `update_rolled_back` with its reason; bundle D (a
 *      gateway that runs but is never confirmed) likewise, rolled back by the image's trial timer;
 *   4. the power cut while the API writes a bundle into the other slot: the box boots its current slot,
 *      the install can be retried;
 *   5. a corrupted and an unsigned bundle are refused through the API, nothing changed; root's version
 *      floor holds against the gateway's own user talking to RAUC directly (floor-check.ts);
 *   6. a backup taken through the API restores onto a freshly flashed card (image/tools/restore-check.ts).
 * Installs and reboots go through the API only; SSH reads the box's state and cuts nothing.
 * Stops the VM itself; exits 1 on the first failed step.
 */
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { imageKind, prepareCard, RX_PORT, startCheck } from './card.js';
import { Board, CheckRun } from './check-run.js';
import { Guest, poll as pollGuest } from './guest.js';
import { refusalsCheck } from './refusals-check.js';
import { restoreOntoFreshCard } from './restore-check.js';
import {
  describe,
  eventsFor,
  install,
  internalEvents,
  raucProgress,
  requestReboot,
  sendEvent,
  slotState,
} from './update-box.js';

const BOOT_TIMEOUT_MS = 20 * 60_000;
const ACCOUNT = '4E29';

const { values } = parseArgs({
  options: {
    image: { type: 'string' },
    'bundle-b': { type: 'string' },
    'bundle-c': { type: 'string' },
    'bundle-d': { type: 'string' },
    older: { type: 'string' },
    work: { type: 'string' },
  },
  strict: true,
});
if (
  !values.image ||
  !values['bundle-b'] ||
  !values['bundle-c'] ||
  !values['bundle-d'] ||
  !values.older ||
  !values.work
) {
  process.stderr.write('update-check: --image, --bundle-b, --bundle-c, --bundle-d, --older and --work are required\n');
  process.exit(2);
}
const work = values.work;
const check = new CheckRun();
const { figures, step } = check;
const secondsSince = (t: number) => ((Date.now() - t) / 1000).toFixed(0);

async function main(): Promise<void> {
  const start = await startCheck(work, 'update-check');
  const { password } = start;
  const rxPort = start.ports.rx;
  const guest = new Guest({ sshPort: start.ports.ssh, apiPort: start.ports.api, keyFile: start.keyFile });
  const board = new Board(start, join(work, 'disk.img'));
  const { consoleLog, powerOn, poll } = board;
  /** Waits for a line on this boot's console (the serial log), then cuts the power at once. */
  const cutAt = async (line: RegExp, what: string) => {
    const log = consoleLog();
    await poll(
      `'${line.source}' on the console`,
      BOOT_TIMEOUT_MS,
      async () => line.test(readFileSync(log, 'latin1')),
      100,
    );
    await board.kill('SIGKILL');
    return `power cut at "${what}" (boot ${board.boots})`;
  };
  board.killOnSignals();

  let token = '';
  const login = async (who = 'admin', secret = password) => {
    const res = await guest.http('POST', '/api/login', { body: { login: who, password: secret } });
    if (res.status !== 200) throw new Error(`POST /api/login as ${who}: ${res.status} ${res.text}`);
    const issued = (JSON.parse(res.text) as { token: string }).token;
    if (who === 'admin') token = issued;
    return issued;
  };
  let acked = 0;
  const sendEvents = async (n: number) => {
    for (let i = 0; i < n; i += 1) if (await sendEvent(rxPort, ACCOUNT)) acked += 1;
  };
  const allEventsThere = async () => {
    const n = await eventsFor(guest, token, ACCOUNT);
    if (n < acked) throw new Error(`${acked} events were ACKed, ${n} are in /api/events`);
    return n;
  };

  /** Installs `bundle` into A through the API, reboots through it, and waits until the box is back on B. */
  const installRebootAndReturn = async (bundle: string) => {
    const r = await install(guest, bundle, token);
    if (!r.ok) throw new Error(`install failed: ${r.output}`);
    const before = await slotState(guest);
    const asked = Date.now();
    await requestReboot(guest, token, before.bootId);
    const back = await poll(
      'back on B and healthy',
      45 * 60_000,
      async () => {
        if (!(await guest.healthy())) return null;
        const s = await slotState(guest);
        return s.booted === 'B' ? s : null;
      },
      5000,
    );
    return { ...back, asked };
  };
  /** The newest update_rolled_back event matching `event`, the same reason in GET /api/system; then acknowledged. */
  const rollbackReported = async (event: RegExp) => {
    const events = await internalEvents(guest, token);
    // "<configured name> (<reason>)" (src/internal-events/catalog.ts).
    const text = events.find((t) => event.test(t));
    if (!text) throw new Error(`no update_rolled_back event like ${event} among: ${events.slice(0, 8).join(' | ')}`);
    const res = await guest.http('GET', '/api/system', { token });
    const report = JSON.parse(res.text) as {
      update: { outcome: string; reason: string | null } | null;
      rollback_unacknowledged: boolean;
    };
    if (report.update?.outcome !== 'rolled_back' || !report.update.reason || !report.rollback_unacknowledged)
      throw new Error(`GET /api/system: ${res.status} ${res.text}`);
    if (!text.includes(report.update.reason)) throw new Error(`event "${text}" vs reason "${report.update.reason}"`);
    const ack = await guest.http('POST', '/api/system/update/acknowledge', { token });
    if (ack.status !== 200) throw new Error(`POST /api/system/update/acknowledge: ${ack.status} ${ack.text}`);
    return `"${text}"; acknowledged`;
  };

  try {
    await step(`prepare the card: ${imageKind(values.image!)}, 4 GiB, vigil-setup.txt`, async () => {
      prepareCard(values.image!, board.disk, start, { adminPassword: password });
      return '';
    });

    // ------------------------------------------------------------------ 1
    await step('1a. first boot, power cut while the data partition grows', async () => {
      powerOn();
      return cutAt(/vigil: growing the data partition/, 'growing the data partition');
    });
    await step('1b. next boot, power cut while the data file system grows', async () => {
      powerOn();
      // Only after sfdisk has grown the partition: the cut the issue found (partition grown, file system not).
      return cutAt(/vigil: growing the data file system/, 'growing the data file system');
    });
    const firstBoot = Date.now();
    await step('1c. the box comes up healthy on slot A with the whole card', async () => {
      powerOn();
      await poll('GET /health 200', BOOT_TIMEOUT_MS, () => guest.healthy(), 3000);
      const grown = await poll('ssh', 120_000, () =>
        guest.ssh(
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
          'd=$(basename "$(readlink -f /dev/disk/by-label/vigil-data)"); p=/sys/class/block/$d; echo $(( $(cat /sys/class/block/${d%[0-9]}/size) - $(cat $p/start) - $(cat $p/size) )) $(( $(cat $p/size) / 2048 )) $(df -m --output=size /var/lib/vigil | tail -1)',
        ),
      );
      const [behind, partMib, fsMib] = grown.split(/\s+/).map(Number) as [number, number, number];
      if (behind > 8192 || partMib - fsMib > 64) throw new Error(`data not grown to the card: ${grown}`);
      const s = await slotState(guest);
      if (s.booted !== 'A') throw new Error(describe(s));
      figures.first_boot_to_healthy_s = secondsSince(firstBoot);
      return `data partition ${partMib} MiB, file system ${fsMib} MiB; ${describe(s)}`;
    });
    await step('1d. a DC-09 receiver ACKs events', async () => {
      await login();
      const put = await guest.http('PUT', '/api/settings', {
        token,
        body: { receivers: { tcp_receivers: [{ id: 1, name: 'update-check', port: RX_PORT }], udp_receivers: [] } },
      });
      if (put.status !== 200) throw new Error(`PUT /api/settings: ${put.status} ${put.text}`);
      await guest.http('GET', '/api/restart-services', { token });
      await poll('receiver', 60_000, async () => (await guest.ssh(`ss -Htln 'sport = :${RX_PORT}'`)).length > 0);
      await sendEvents(5);
      if (acked !== 5) throw new Error(`${acked} of 5 events ACKed`);
      return `${acked} ACKed, ${await allEventsThere()} in /api/events`;
    });

    // ------------------------------------------------------------------ 2
    let bHealthyAt = 0;
    const bundleB = await step('bundles B, C and D are built', async () => {
      for (const bundle of [values['bundle-b']!, values['bundle-c']!, values['bundle-d']!, values.older!])
        await pollGuest(
          `bundle ${bundle}`,
          60 * 60_000,
          async () => {
            if (existsSync(`${bundle}.failed`))
              throw Object.assign(new Error(`building ${bundle} failed (see build/bundle-*.log)`), { name: 'VmDied' });
            return existsSync(bundle);
          },
          5000,
        );
      figures.bundle_b_mib = (statSync(values['bundle-b']!).size / 1024 ** 2).toFixed(0);
      figures.bundle_c_mib = (statSync(values['bundle-c']!).size / 1024 ** 2).toFixed(0);
      return values['bundle-b']!;
    });
    await step('2a. bundle B installed into slot B through POST /api/system/update', async () => {
      const r = await install(guest, bundleB, token);
      if (!r.ok) throw new Error(`install failed: ${r.output}`);
      figures.bundle_b_install_s = r.seconds.toFixed(0);
      const s = await slotState(guest);
      if (s.boot.BOOT_ORDER !== 'B A' || s.boot.BOOT_B_TRIAL !== '1') throw new Error(describe(s));
      return `${r.seconds.toFixed(0)} s (upload and install); ${describe(s)}`;
    });
    await step("2b. reboot (POST /api/system/reboot), B healthy, its migration ran, A's events there", async () => {
      const before = await slotState(guest);
      const asked = Date.now();
      await requestReboot(guest, token, before.bootId);
      await poll('healthy on B', BOOT_TIMEOUT_MS, () => guest.healthy(), 3000);
      bHealthyAt = Date.now();
      figures.downtime_reboot_to_healthy_s = secondsSince(asked);
      const s = await poll('ssh', 180_000, () => slotState(guest)); // /health answers before sshd does
      if (s.booted !== 'B') throw new Error(`booted ${describe(s)}`);
      const probe = await guest.ssh(
        `runuser -u vigil -- node -e "const D=require('/opt/vigil/node_modules/better-sqlite3');const d=new D('/var/lib/vigil/vigil.db',{readonly:true});console.log(d.prepare(\\"select count(*) n from sqlite_master where name='update_check_probe'\\").get().n)"`,
      );
      if (probe.trim() !== '1') throw new Error('the test migration did not run on B');
      await login();
      await sendEvents(3);
      return `${describe(s)}; probe table present; ${await allEventsThere()} events (${acked} ACKed); down ${figures.downtime_reboot_to_healthy_s} s`;
    });
    await step('2c. B is confirmed by the gateway itself after its grace period of health', async () => {
      const confirmedAt = await poll(
        'B confirmed by the gateway (BOOT_B_TRIAL=0)',
        10 * 60_000,
        async () => ((await slotState(guest)).boot.BOOT_B_TRIAL === '0' ? Date.now() : null),
        5000,
      );
      const s = await slotState(guest);
      if (s.boot.BOOT_B_TRIAL !== '0' || s.boot.BOOT_B_LEFT !== '3') throw new Error(describe(s));
      const events = await internalEvents(guest, token);
      if (!events.some((t) => /update confirmed/i.test(t)))
        throw new Error(`no update_confirmed event among: ${events.slice(0, 8).join(' | ')}`);
      figures.healthy_to_confirmed_s = ((confirmedAt - bHealthyAt) / 1000).toFixed(0);
      return `${describe(s)}; update_confirmed journaled; ${figures.healthy_to_confirmed_s} s after /health answered`;
    });

    // ------------------------------------------------------------------ 3
    await step('3. bundle C (never healthy) installed into A: the box returns to B by itself', async () => {
      const back = await installRebootAndReturn(values['bundle-c']!);
      figures.rollback_s = secondsSince(back.asked);
      if (back.boot.BOOT_A_LEFT !== '0') throw new Error(`A is not spent: ${describe(back)}`);
      await login();
      const tries =
        readFileSync(consoleLog(), 'latin1')
          .match(/vigil: booting slot \w/g)
          ?.join(', ') ?? '?';
      return `${describe(back)}; ${await allEventsThere()} events kept; back ${figures.rollback_s} s after the reboot request; U-Boot tries: ${tries}`;
    });
    await step('3b. the gateway on B journaled update_rolled_back with its cause on A, and reports it', () =>
      // What C did on A, from A's own runs (src/update/rollback-cause.ts), and nothing about B's.
      rollbackReported(
        /rolled back \(version \S+ in slot A never started the gateway: \d+ runs? over \d+ boots?, each ended before the gateway ran \(exited with status 1\); the box returned to slot B after A's boot tries ran out\)$/i,
      ),
    );
    await step(
      '3c. bundle D (runs, never confirmed) installed into A: the trial timer returns the box to B',
      async () => {
        // D's gateway runs on A, but its receiver's port is taken: vigil-trial-deadline gives up after 4 min.
        const back = await installRebootAndReturn(values['bundle-d']!);
        figures.trial_rollback_s = secondsSince(back.asked);
        if (!/vigil: slot A was not confirmed healthy within/.test(readFileSync(consoleLog(), 'latin1')))
          throw new Error('no "slot A was not confirmed healthy" from vigil-trial-deadline on the console');
        await login();
        return `${describe(back)}; ${await allEventsThere()} events kept; back ${figures.trial_rollback_s} s after the reboot request`;
      },
    );
    await step("3d. the gateway on B journaled D's cause on A with the trial timer's reason, and reports it", () =>
      rollbackReported(
        /rolled back \(version \S+ in slot A ran the gateway but it was never confirmed healthy \(last run [^)]*\); the trial timer marked A bad and rebooted into B: slot A was not confirmed healthy within 4min after boot; rolling back \(/i,
      ),
    );

    // ------------------------------------------------------------------ 4
    await step(
      '4. power cut while the API writes bundle B into A: B boots as before, the install can be retried',
      async () => {
        const before = await slotState(guest);
        // The upload's connection dies with the box: its answer is not awaited for anything.
        const installing = install(guest, bundleB, token).catch((err: Error) => ({ ok: false, output: err.message }));
        const writing = await poll(
          'RAUC copying the image into slot A',
          20 * 60_000,
          async () => {
            const p = await raucProgress(guest);
            return p && (p.percent >= 40 || /copying image/i.test(p.message)) ? p : null;
          },
          1000,
        );
        await new Promise((r) => setTimeout(r, 3000));
        await board.kill('SIGKILL');
        await installing;
        powerOn();
        await poll('healthy after the cut', BOOT_TIMEOUT_MS, () => guest.healthy(), 3000);
        const after = await poll('ssh', 180_000, () => slotState(guest));
        if (after.booted !== 'B' || after.version !== before.version)
          throw new Error(`after the cut: ${describe(after)}`);
        await login();
        const retry = await install(guest, bundleB, token);
        if (!retry.ok) throw new Error(`the retried install failed: ${retry.output}`);
        // The retried A stays installed and is never activated: B stays in charge until the power-off in 6.
        return `cut 3 s after RAUC said ${writing.percent}% "${writing.message}"; booted ${after.booted} ${after.version} after the cut; retry installed in ${retry.seconds.toFixed(0)} s`;
      },
    );

    // ------------------------------------------------------------------ 5
    await refusalsCheck({
      guest,
      bundle: bundleB,
      token: () => token,
      work,
      older: values.older!,
      olderVersion: /^vigil-(\d+\.\d+\.\d+)-/.exec(basename(values.older!))?.[1] ?? '?',
      step,
      poll,
    });

    // ------------------------------------------------------------------ 6
    await restoreOntoFreshCard({
      start,
      image: values.image!,
      guest,
      account: ACCOUNT,
      figures,
      step,
      poll,
      token: () => token,
      login,
      sendEvent: () => sendEvent(rxPort, ACCOUNT),
      powerOff: async () => {
        await board.powerOff(guest);
        rmSync(board.disk, { force: true }); // the old card is done with; the restore needs the space
      },
      powerOn,
      timeoutMs: BOOT_TIMEOUT_MS,
    });
    await step('power off', async () => {
      await board.powerOff(guest);
      return '';
    });
  } finally {
    await board.kill();
  }
  check.finish('update-check passed');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    check.finish(`FAILED: ${(err as Error).message}\n  console logs: ${work}/console-*.log`);
    process.exit(1);
  },
);
