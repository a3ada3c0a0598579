/**
 * node dist/image/tools/channel-check.js --image IMG --bump B1 --unhealthy B2 --deb B3 --cut B4 --full B5 --work DIR
 * Proves the update channel on the emulated board (docs/image.md "channel-check", docs/updates.md "The
 * update channel"): an HTTPS server on the host's loopback (image/tools/channel-server.ts, reached from the
 * guest at 10.0.2.2 through qemu's user network) serves the signed manifest and the bundles with range
 * requests; the box polls it, streams the bundles through RAUC and reboots by itself. Steps, each with its
 * figures (bytes the server sent, seconds, downtime):
 *   1. a fresh card comes up healthy on slot A; the channel is configured (its CA put on the box over SSH,
 *      the `updates` section over the API);
 *   2. every failure mode — nothing published (404), 500, the server down, a trickle, another CA's
 *      signature, another board, an expired manifest, a replayed one, a missing or truncated bundle — is
 *      reported in GET /api/system and changes no slot; a wave of 0 % installs nothing;
 *   3. (a) a version bump, adaptive: streamed into B, the box reboots into it and the gateway confirms;
 *   4. a bundle whose gateway never starts rolls back by itself, with its cause; the channel never offers
 *      it to the box again;
 *   5. (b) one Debian package at another version, adaptive, into A, confirmed;
 *   6. a power cut in the middle of a streamed install: the old slot boots, the next check finishes the job;
 *   7. a server that stalls mid-stream: the install fails, the box runs on; the check after it installs
 *      (c) the full, non-adaptive bundle: a full first fetch.
 * Stops the VM itself; exits 1 on the first failed step.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { imageKind, prepareCard, RX_PORT, startCheck } from './card.js';
import {
  type Channel,
  channelFacts,
  channelTls,
  checkNow,
  HealthGaps,
  HOST_FROM_GUEST,
  publish,
  versionOf,
} from './channel-box.js';
import { channelFailures } from './channel-failures.js';
import { ChannelServer } from './channel-server.js';
import { Board, CheckRun } from './check-run.js';
import { Guest, poll as pollGuest } from './guest.js';
import { describe, internalEvents, raucProgress, sendEvent, slotState } from './update-box.js';

const BOOT_TIMEOUT_MS = 20 * 60_000;
const ACCOUNT = '4E42';
const REPO = new URL('../../../', import.meta.url).pathname;

const { values } = parseArgs({
  options: {
    image: { type: 'string' },
    bump: { type: 'string' },
    unhealthy: { type: 'string' },
    deb: { type: 'string' },
    cut: { type: 'string' },
    full: { type: 'string' },
    work: { type: 'string' },
    out: { type: 'string' },
  },
  strict: true,
});
const bundleNames = ['bump', 'unhealthy', 'deb', 'cut', 'full'] as const;
if (!values.image || !values.work || !values.out || bundleNames.some((n) => !values[n])) {
  process.stderr.write(`channel-check: --image, --work, --out and --${bundleNames.join(', --')} are required\n`);
  process.exit(2);
}
const bundles = Object.fromEntries(bundleNames.map((n) => [n, values[n]!])) as Record<
  (typeof bundleNames)[number],
  string
>;
const work = values.work;
const check = new CheckRun();
const { figures, step } = check;
const mib = (bytes: number) => (bytes / 1024 ** 2).toFixed(1);

/** Waits for a bundle channel-check.sh builds in the background (BUNDLE.failed when its build failed). */
async function ready(bundle: string): Promise<string> {
  await pollGuest(
    `bundle ${basename(bundle)}`,
    90 * 60_000,
    async () => {
      if (existsSync(`${bundle}.failed`))
        throw Object.assign(new Error(`building ${bundle} failed (see build/channel-bundle-*.log)`), {
          name: 'VmDied',
        });
      return existsSync(bundle);
    },
    5000,
  );
  return bundle;
}

async function main(): Promise<void> {
  const start = await startCheck(work, 'channel-check');
  const guest = new Guest({ sshPort: start.ports.ssh, apiPort: start.ports.api, keyFile: start.keyFile });
  const tls = channelTls(join(work, 'tls'));
  const www = join(work, 'www');
  let server = new ChannelServer({
    root: www,
    key: readFileSync(tls.key, 'utf8'),
    cert: readFileSync(tls.cert, 'utf8'),
  });
  await server.start();
  const port = server.port;
  const channelUrl = `https://${HOST_FROM_GUEST}:${port}/stable/channel.cms`;
  const board = new Board(start, join(work, 'disk.img'));
  const { powerOn, poll } = board;
  board.killOnSignals();

  let token = '';
  const login = async () => {
    const res = await guest.http('POST', '/api/login', { body: { login: 'admin', password: start.password } });
    if (res.status !== 200) throw new Error(`POST /api/login: ${res.status} ${res.text}`);
    token = (JSON.parse(res.text) as { token: string }).token;
  };
  const settings = async (updates: Record<string, unknown>) => {
    const res = await guest.http('PUT', '/api/settings', { token, body: { updates } });
    if (res.status !== 200) throw new Error(`PUT /api/settings: ${res.status} ${res.text}`);
  };
  /** Waits until the channel's install ends; its facts then. */
  const installEnds = async (version: string): Promise<Channel> =>
    poll(
      `the channel's install of ${version} to end`,
      60 * 60_000,
      async () => {
        const facts = await channelFacts(guest, token).catch(() => null);
        return facts &&
          facts.state !== 'installing' &&
          facts.state !== 'checking' &&
          facts.last_install?.version === version
          ? facts
          : null;
      },
      5000,
    );
  /**
   * After the box asked for its reboot: back up on `slot`, healthy, and (when asked) confirmed; down: the
   * longest silence of /health that `gaps` saw since the install began.
   */
  const rebootsInto = async (slot: string, bootId: string, confirm: boolean, gaps: HealthGaps) => {
    await poll(
      'the box reboots',
      10 * 60_000,
      async () => {
        const id = await guest.ssh('cat /proc/sys/kernel/random/boot_id', 15_000).catch(() => 'down');
        return id !== bootId;
      },
      2000,
    );
    await poll('healthy again', BOOT_TIMEOUT_MS, () => guest.healthy(), 3000);
    const down = await gaps.stop();
    const s = await poll('ssh', 180_000, () => slotState(guest));
    if (s.booted !== slot) throw new Error(`booted ${describe(s)}, not ${slot}`);
    await login();
    if (confirm)
      await poll(
        `slot ${slot} confirmed by the gateway`,
        10 * 60_000,
        async () => (await slotState(guest)).boot[`BOOT_${slot}_TRIAL`] === '0',
        5000,
      );
    return { down, state: await slotState(guest) };
  };
  /** Publishes `bundle` (waves 100 %), checks now, and returns the streamed install's figures. */
  const streamed = async (bundle: string) => {
    await ready(bundle);
    const version = versionOf(bundle);
    publish(REPO, www, { version, bundle }, values.out!);
    server.resetCounts();
    const before = await slotState(guest);
    // The box may reboot into it before the next poll sees the install end: downtime is watched throughout.
    const gaps = new HealthGaps(guest).start();
    await checkNow(guest, token);
    const facts = await installEnds(version);
    if (facts.last_install?.result !== 'installed')
      throw new Error(`install of ${version}: ${JSON.stringify(facts.last_install)} ${JSON.stringify(facts.error)}`);
    const bytes = server.bytesSent(`/stable/${basename(bundle)}`);
    return {
      version,
      before,
      gaps,
      bytes,
      // RAUC's install as the box timed it (the check's poll may see it end only after the reboot).
      seconds: facts.last_install.seconds,
      size: statSync(bundle).size,
      requests: server.requests.get(`/stable/${basename(bundle)}`) ?? 0,
    };
  };
  const fetched = (r: { bytes: number; size: number; seconds: number; requests: number }) =>
    `${mib(r.bytes)} of ${mib(r.size)} MiB (${((100 * r.bytes) / r.size).toFixed(1)} %) in ${r.requests} requests, ${r.seconds.toFixed(0)} s`;

  try {
    // ------------------------------------------------------------------ 1
    await step(`1a. prepare the card (${imageKind(values.image!)}) and boot it: healthy on slot A`, async () => {
      prepareCard(values.image!, board.disk, start, { adminPassword: start.password });
      const on = Date.now();
      powerOn();
      await poll('GET /health 200', BOOT_TIMEOUT_MS, () => guest.healthy(), 3000);
      const s = await poll('ssh', 180_000, () => slotState(guest));
      if (s.booted !== 'A') throw new Error(describe(s));
      figures.first_boot_to_healthy_s = ((Date.now() - on) / 1000).toFixed(0);
      return describe(s);
    });
    await step(
      '1b. a DC-09 receiver; the channel configured: its CA on the box (SSH), `updates` over the API',
      async () => {
        await login();
        const put = await guest.http('PUT', '/api/settings', {
          token,
          body: { receivers: { tcp_receivers: [{ id: 1, name: 'channel-check', port: RX_PORT }], udp_receivers: [] } },
        });
        if (put.status !== 200) throw new Error(`PUT /api/settings: ${put.status} ${put.text}`);
        await guest.http('GET', '/api/restart-services', { token });
        await poll('receiver', 60_000, async () => (await guest.ssh(`ss -Htln 'sport = :${RX_PORT}'`)).length > 0);
        // A test report, not an alarm: an alarm holds installs back for 10 quiet minutes (docs/updates.md).
        if (!(await sendEvent(start.ports.rx, ACCOUNT, undefined, 'RP'))) throw new Error('the event was not ACKed');
        await guest.sshWithInput('install -o vigil -g vigil -m 0644 /dev/stdin /var/lib/vigil/channel-ca.pem', tls.ca);
        await settings({
          channel_url: channelUrl,
          ca_file: '/var/lib/vigil/channel-ca.pem',
          window_start: '00:00',
          window_end: '00:00',
          auto_install: true,
          auto_reboot: true,
        });
        return `channel ${channelUrl}`;
      },
    );

    // ------------------------------------------------------------------ 2
    server = await channelFailures({
      guest,
      token: () => token,
      step,
      poll,
      repo: REPO,
      www,
      out: values.out!,
      work,
      bundle: await ready(bundles.bump),
      server,
      port,
      tls,
    });

    // ------------------------------------------------------------------ 3
    await step('3. (a) a version bump, adaptive: streamed into B, reboot, confirmed by the gateway', async () => {
      const r = await streamed(bundles.bump);
      const back = await rebootsInto('B', r.before.bootId, true, r.gaps);
      figures.a_version_bump = fetched(r);
      figures.a_downtime_s = back.down.toFixed(0);
      return `${figures.a_version_bump}; down ${figures.a_downtime_s} s; ${describe(back.state)}`;
    });

    // ------------------------------------------------------------------ 4
    await step(
      '4. a bundle whose gateway never starts: the box returns to B by itself, cause reported, not offered again',
      async () => {
        const asked = Date.now();
        const r = await streamed(bundles.unhealthy);
        const back = await poll(
          'back on B and healthy',
          45 * 60_000,
          async () => {
            if (!(await guest.healthy())) return null;
            const s = await slotState(guest).catch(() => null);
            return s && s.booted === 'B' && s.bootId !== r.before.bootId ? s : null;
          },
          5000,
        );
        figures.rollback_s = ((Date.now() - asked) / 1000).toFixed(0);
        figures.rollback_downtime_s = (await r.gaps.stop()).toFixed(0);
        await login();
        const events = await internalEvents(guest, token);
        const cause = events.find((t) =>
          /rolled back \(version \S+ in slot A never started the gateway: .*exited with status 1/.test(t),
        );
        if (!cause) throw new Error(`no rollback with its cause among: ${events.slice(0, 6).join(' | ')}`);
        const again = await checkNow(guest, token);
        if (!/rolled back on this box/.test(again.decision ?? '') || (await slotState(guest)).boot.BOOT_A_LEFT !== '0')
          throw new Error(`offered again: ${JSON.stringify(again)}`);
        await guest.http('POST', '/api/system/update/acknowledge', { token });
        return `${describe(back)}; back ${figures.rollback_s} s after Check now (the install, A's tries), down ${figures.rollback_downtime_s} s; "${cause}"; then: ${again.decision}`;
      },
    );

    // ------------------------------------------------------------------ 5
    await step('5. (b) one Debian package at another version, adaptive: into A, reboot, confirmed', async () => {
      const r = await streamed(bundles.deb);
      const back = await rebootsInto('A', r.before.bootId, true, r.gaps);
      // The build log names the package (image/test-variants.sh deb-change).
      const changed =
        /test variant: (.*)/.exec(readFileSync(join(values.out!, 'channel-bundle-deb.log'), 'utf8'))?.[1] ?? '?';
      figures.b_debian_package = `${changed}: ${fetched(r)}`;
      figures.b_downtime_s = back.down.toFixed(0);
      return `${figures.b_debian_package}; down ${figures.b_downtime_s} s; ${describe(back.state)}`;
    });

    // ------------------------------------------------------------------ 6
    await step(
      '6. a power cut in the middle of a streamed install: A boots as before, the next check finishes',
      async () => {
        const version = versionOf(bundles.cut);
        publish(REPO, www, { version, bundle: bundles.cut }, values.out!);
        const before = await slotState(guest);
        await checkNow(guest, token);
        const at = await poll(
          'RAUC writing slot B',
          30 * 60_000,
          async () => {
            const p = await raucProgress(guest);
            // RAUC's progress: 40 % is "Determining target install group done." (nothing written yet);
            // past it, and before 100 %, RAUC copies the image into slot B: the cut lands mid-write.
            return p && p.percent < 100 && (p.percent > 40 || /copying image/i.test(p.message)) ? p : null;
          },
          1000,
        );
        await board.kill('SIGKILL');
        powerOn();
        await poll('healthy after the cut', BOOT_TIMEOUT_MS, () => guest.healthy(), 3000);
        const after = await poll('ssh', 180_000, () => slotState(guest));
        if (after.booted !== 'A' || after.version !== before.version)
          throw new Error(`after the cut: ${describe(after)}`);
        await login();
        const r = await streamed(bundles.cut);
        const back = await rebootsInto('B', r.before.bootId, true, r.gaps);
        figures.cut_retry = fetched(r);
        return `cut at RAUC's ${at.percent}% "${at.message}"; booted ${after.booted} ${after.version}; the next check: ${figures.cut_retry}; ${describe(back.state)}`;
      },
    );

    // ------------------------------------------------------------------ 7
    await step(
      '7. a server that stalls mid-stream: the box runs on; the next check streams (c) the full bundle',
      async () => {
        await settings({ auto_reboot: false });
        const version = versionOf(bundles.full);
        const path = `/stable/${basename(bundles.full)}`;
        publish(REPO, www, { version, bundle: bundles.full }, values.out!);
        server.misbehave(path, { kind: 'stall', afterBytes: 64 * 1024 ** 2 });
        const before = await slotState(guest);
        const stalled = Date.now();
        await checkNow(guest, token);
        const failed = await poll(
          'the stalled install to fail',
          60 * 60_000,
          async () => {
            const f = await channelFacts(guest, token);
            return f.state === 'error' ? f : null;
          },
          5000,
        );
        const running = await slotState(guest);
        if (running.booted !== before.booted || !(await guest.healthy()))
          throw new Error(`after the stall: ${describe(running)}`);
        figures.stall_gave_up_s = ((Date.now() - stalled) / 1000).toFixed(0);
        server.behave();
        const r = await streamed(bundles.full);
        await r.gaps.stop();
        figures.c_full_fetch = fetched(r);
        const facts = await channelFacts(guest, token);
        if (!/automatic reboot is off/.test(facts.decision ?? '')) throw new Error(JSON.stringify(facts));
        return `stalled after 64 MiB: ${failed.error?.code} after ${figures.stall_gave_up_s} s, the box ran on (${describe(running)}); then ${figures.c_full_fetch}; ${facts.decision}`;
      },
    );

    await step('power off', async () => {
      await board.powerOff(guest);
      return '';
    });
  } finally {
    await board.kill();
    await server.stop();
  }
  check.finish('channel-check passed');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    check.finish(`FAILED: ${(err as Error).message}\n  console logs: ${work}/console-*.log`);
    process.exit(1);
  },
);
