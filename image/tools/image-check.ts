/**
 * node dist/image/tools/image-check.js --image build/vigil-<v>-arm64.img.xz --work DIR
 * Boots the built image in qemu-system-aarch64 and proves it, step by step with times (docs/image.md):
 * first boot applied and removed, service healthy, login with the first-boot password, a DC-09 frame
 * ACKed and in /api/events, a SIGSTOPped gateway restarted by the watchdog, data surviving a reboot.
 * Stops the VM itself; exits 1 on the first failed step.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildMessage } from '../../src/protocols/dc09/encoder.js';
import { Guest, poll as pollGuest, sendFrame } from './guest.js';
import { lanListeners, listenerSurprises, parseListeners } from './listeners.js';
import { boardVm, imageKind, prepareCard, RX_PORT, startCheck } from './card.js';
import { CheckRun } from './check-run.js';
import { soak } from './soak.js';
import { UBOOT_QEMU_ARM64 } from './vm.js';

const BOOT_TIMEOUT_MS = 15 * 60_000; // TCG emulation on a shared 2-core host

const { values } = parseArgs({
  options: { image: { type: 'string' }, work: { type: 'string' }, soak: { type: 'string', default: '5' } },
  strict: true,
});
const soakMinutes = Number(values.soak);
if (!values.image || !values.work || !Number.isInteger(soakMinutes) || soakMinutes < 1 || soakMinutes > 24 * 60) {
  process.stderr.write('image-check: --image and --work are required; --soak takes whole minutes (1..1440)\n');
  process.exit(2);
}
const imageXz = values.image;
const work = values.work;
const check = new CheckRun();
const { figures, stamp, step } = check;

async function main(): Promise<void> {
  const start = await startCheck(work, 'image-check');
  const { password } = start;
  const { ssh: sshPort, api: apiPort, rx: rxPort } = start.ports;
  const disk = join(work, 'disk.img');

  await step(`prepare the card: ${imageKind(imageXz)}, 4 GiB, vigil-setup.txt`, async () => {
    const { partitions, fat } = prepareCard(imageXz, disk, start, { adminPassword: password });
    figures.data_partition_mib_in_image = String((partitions[3]!.sectors * 512) / 1024 ** 2);
    const names = fat.list();
    for (const needed of ['boot.scr', 'u-boot.bin', 'vigil-boot.env', 'config.txt'])
      if (!names.includes(needed)) throw new Error(`no ${needed} on the boot partition: ${names.join(' ')}`);
    return '';
  });

  const vm = boardVm(start, disk, join(work, 'console.log'));
  const guest = new Guest({ sshPort, apiPort, keyFile: start.keyFile });
  // Every wait fails at once, with qemu's own words, when qemu has died: a dead VM is not a slow one.
  const poll: typeof pollGuest = (what, timeoutMs, probe, intervalMs) =>
    pollGuest(
      what,
      timeoutMs,
      async () => {
        vm.assertRunning();
        return probe();
      },
      intervalMs,
    );
  // Interrupted (Ctrl-C, timeout): the VM goes with us.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      process.stdout.write(`${stamp()} ${signal}: stopping the VM\n`);
      void vm.kill().finally(() => process.exit(130));
    });
  }
  try {
    await step(
      `boot in qemu -M virt through U-Boot (forwards 127.0.0.1:${sshPort}->22, :${apiPort}->8443, :${rxPort}->${RX_PORT})`,
      async () => {
        vm.start();
        return UBOOT_QEMU_ARM64;
      },
    );
    const bootStarted = Date.now();
    await step('the service reaches healthy (GET /health 200)', async () => {
      await poll(
        'GET /health 200',
        BOOT_TIMEOUT_MS,
        async () => {
          return guest.healthy();
        },
        3000,
      );
      figures.boot_to_healthy_s = ((Date.now() - bootStarted) / 1000).toFixed(0);
      return `${figures.boot_to_healthy_s} s after power-on`;
    });

    await step('first boot applied vigil-setup.txt and removed it', async () => {
      const out = await poll('ssh', 120_000, () =>
        guest.ssh(
          'test ! -e /boot/firmware/vigil-setup.txt && echo removed; cat /boot/firmware/vigil-setup.result.txt; hostname; readlink /etc/localtime; ip -4 -o addr show eth0',
        ),
      );
      for (const expected of [
        'removed',
        'vigil-setup.txt was applied, then destroyed',
        'vigil-check',
        'Europe/Berlin',
        '10.0.2.15/24',
        'SSH: on',
      ]) {
        if (!out.includes(expected)) throw new Error(`expected '${expected}' in:\n${out}`);
      }
      return 'result file says applied; hostname, time zone and static address in force';
    });

    await step(
      'booted slot A through boot.scr, one try taken; RAUC answers root and the gateway user only',
      async () => {
        const out = await guest.ssh(
          [
            'tr " " "\\n" < /proc/cmdline | grep -E "^(rauc.slot|root)="',
            'cat /run/vigil-boot/state.env',
            'rauc status --output-format=json',
            'runuser -u vigil -- rauc status --output-format=json >/dev/null && echo vigil-allowed',
            'runuser -u nobody -- rauc status >/dev/null 2>&1 && echo nobody-allowed || echo nobody-refused',
          ].join('; '),
        );
        for (const expected of [
          'rauc.slot=A',
          'root=PARTUUID=5649474c-02',
          'BOOT_ORDER=A B',
          'vigil-allowed',
          'nobody-refused',
        ])
          if (!out.includes(expected)) throw new Error(`expected '${expected}' in:\n${out}`);
        if (!/BOOT_A_LEFT=[0-3]/.test(out)) throw new Error(`no boot state:\n${out}`);
        const status = JSON.parse(out.split('\n').find((l) => l.startsWith('{')) ?? '{}') as {
          compatible?: string;
          booted?: string;
        };
        if (status.compatible !== 'vigil-rpi-arm64' || status.booted !== 'A')
          throw new Error(`rauc status: ${JSON.stringify(status)}`);
        return 'rauc.slot=A, root=PARTUUID=5649474c-02; rauc status: compatible vigil-rpi-arm64, booted A';
      },
    );

    await step('root read-only, journal in RAM, data partition grown to fill the card', async () => {
      const out = await guest.ssh(
        [
          'findmnt -no OPTIONS /',
          'findmnt -no SOURCE,OPTIONS /var/lib/vigil',
          'd=$(basename "$(readlink -f /dev/disk/by-label/vigil-data)")',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
          'echo "$(cat /sys/class/block/$d/start) $(cat /sys/class/block/$d/size) $(cat /sys/class/block/${d%[0-9]}/size)"',
          'test -d /var/log/journal && echo persistent || echo volatile',
          'df -m --output=used / | tail -1',
          "systemctl --failed --plain --no-legend | awk '{print $1}' | tr '\\n' ' '; echo",
        ].join('; '),
      );
      const [rootOptions, dataMount, sectors, journal, rootUsed, failedUnits] = out.split('\n');
      const [start, size, diskSize] = (sectors ?? '').split(' ').map(Number) as [number, number, number];
      if (!rootOptions?.split(',').includes('ro')) throw new Error(`root is not read-only: ${rootOptions}`);
      // Grown: at most 4 MiB (8192 sectors) of the card left behind the data partition.
      if (!(diskSize - (start + size) <= 8192)) throw new Error(`data partition not grown: ${sectors}`);
      if (journal !== 'volatile') throw new Error(`journal: ${journal}`);
      if (failedUnits?.trim()) throw new Error(`failed units: ${failedUnits}`);
      figures.data_partition_mib_after_first_boot = String(Math.round((size * 512) / 1024 ** 2));
      figures.root_used_mib = rootUsed?.trim() ?? '?';
      return `/ ${rootOptions}; ${dataMount}; data ${figures.data_partition_mib_after_first_boot} MiB`;
    });

    const { token } = await step('login as admin with the first-boot password', async () => {
      const res = await guest.http('POST', '/api/login', { body: { login: 'admin', password } });
      if (res.status !== 200) throw new Error(`POST /api/login: ${res.status} ${res.text}`);
      const wrong = await guest.http('POST', '/api/login', { body: { login: 'admin', password: `${password}x` } });
      if (wrong.status !== 401) throw new Error(`a wrong password got ${wrong.status}`);
      // An object, not the string: step() prints string results, and a token is not for logs.
      return { token: (JSON.parse(res.text) as { token: string }).token };
    });

    await step(`configure a TCP receiver on port ${RX_PORT}`, async () => {
      const put = await guest.http('PUT', '/api/settings', {
        token,
        body: { receivers: { tcp_receivers: [{ id: 1, name: 'image-check', port: RX_PORT }], udp_receivers: [] } },
      });
      if (put.status !== 200) throw new Error(`PUT /api/settings: ${put.status} ${put.text}`);
      const restart = await guest.http('GET', '/api/restart-services', { token });
      if (restart.status !== 200) throw new Error(`GET /api/restart-services: ${restart.status} ${restart.text}`);
      await poll(
        'receiver listening',
        60_000,
        async () => (await guest.ssh(`ss -Htln 'sport = :${RX_PORT}'`)).length > 0,
      );
      return '';
    });

    await step('the box listens on nothing it does not need (ss -Htlnup, every address but loopback)', async () => {
      const lan = lanListeners(parseListeners(await guest.ssh('ss -Htlnup')));
      const surprises = listenerSurprises(lan, [22, 8080, 8443, RX_PORT]);
      if (surprises.length > 0) throw new Error(`${surprises.join(', ')} (listening: ${lan.join(' ')})`);
      return lan.join(' ');
    });

    const account = '4E21';
    await step('a DC-09 frame is ACKed and appears in /api/events', async () => {
      const frame = buildMessage({
        token: 'SIA-DCS',
        sequence: 1,
        receiver: 1,
        line: 1,
        account,
        data: `#${account}|Nri1/BA01`,
        timestamp: Date.now(),
      });
      const reply = await sendFrame(rxPort, frame);
      if (!reply.includes('"ACK"')) throw new Error(`reply is not an ACK: ${JSON.stringify(reply)}`);
      await poll('event in /api/events', 30_000, async () => (await eventsFor(guest, token, account)) > 0);
      return `reply ${JSON.stringify(reply.trim())}`;
    });

    await step('idle figures: RSS of the gateway, memory', async () => {
      await new Promise((resolve) => setTimeout(resolve, 20_000));
      const out = await guest.ssh(
        "pid=$(systemctl show -p MainPID --value vigil); ps -o rss= -p $pid; free -m | awk '/Mem:/ {print $3}'",
      );
      const [rss, used] = out.split('\n');
      figures.idle_rss_mib = (Number(rss) / 1024).toFixed(1);
      figures.system_used_mib = used?.trim() ?? '?';
      return `gateway RSS ${figures.idle_rss_mib} MiB, system ${figures.system_used_mib} MiB used`;
    });

    await step(
      `${soakMinutes} min of DC-09 traffic, SSH sessions and API polls: the watchdog never fires`,
      async () => {
        const r = await soak({
          guest,
          token,
          rxPort,
          minutes: soakMinutes,
          log: (line) => process.stdout.write(`${stamp()}     ${line}\n`),
          assertRunning: () => vm.assertRunning(),
        });
        figures.soak = `${soakMinutes} min, ${r.acked} events ACKed and stored (${(r.acked / soakMinutes / 60).toFixed(1)}/s), ${r.refused} not ACKed, ${r.sshRounds} SSH rounds (fastest/median/slowest ${r.roundSeconds.join('/')} s), pid ${r.pid} throughout`;
        return figures.soak;
      },
    );

    await step('a healthy gateway was never killed by its own watchdog (every notification attributed)', async () => {
      // systemd drops a notification it cannot attribute ("Cannot find unit for notify message"), and a
      // lost WATCHDOG=1 kills a healthy gateway (docs/watchdog.md): neither may have happened so far.
      const log = await guest.ssh(
        "journalctl -b -o cat --no-pager | grep -cE 'Cannot find unit for notify message|Watchdog timeout' || true",
      );
      const restarts = await guest.ssh('systemctl show -p NRestarts --value vigil');
      if (log.trim() !== '0' || restarts.trim() !== '0')
        throw new Error(`${log.trim()} watchdog or notify lines, ${restarts.trim()} restarts`);
      return `no dropped notification, no watchdog kill, NRestarts=0 (${figures.boot_to_healthy_s ?? '?'} s after boot and on)`;
    });

    await step('a SIGSTOPped gateway is killed by the watchdog and restarted', async () => {
      const before = await guest.ssh('systemctl show -p MainPID --value vigil');
      const stoppedAt = Date.now();
      await guest.ssh(`kill -STOP ${before}`);
      const after = await poll('new gateway process', 180_000, async () => {
        const pid = await guest.ssh('systemctl show -p MainPID --value vigil');
        return pid !== before && pid !== '0' ? pid : null;
      });
      await poll('healthy again', 180_000, () => guest.healthy());
      const log = await guest.ssh(
        "journalctl -u vigil -o cat --no-pager | grep -iE 'watchdog timeout|killing process' | tail -2",
      );
      if (!/watchdog timeout/i.test(log)) throw new Error(`no watchdog timeout in the journal:\n${log}`);
      figures.watchdog_restart_s = ((Date.now() - stoppedAt) / 1000).toFixed(0);
      return `pid ${before} -> ${after}, healthy ${figures.watchdog_restart_s} s after SIGSTOP (${log.split('\n')[0]})`;
    });

    await step(
      'data survives a reboot; first boot does not run again, even when the gateway user deleted its status',
      async () => {
        // The gateway's user owns the data dir: what it deletes there must not start first boot as root (#28.5).
        await guest.ssh('runuser -u vigil -- rm -f /var/lib/vigil/first-boot-status.json');
        const bootIdBefore = await guest.ssh('cat /proc/sys/kernel/random/boot_id');
        await guest.ssh('systemctl reboot').catch(() => undefined); // the session may be cut by the reboot
        await poll('the box went down', 120_000, async () => {
          const id = await guest.ssh('cat /proc/sys/kernel/random/boot_id', 15_000).catch(() => 'down');
          return id !== bootIdBefore;
        });
        const rebootStarted = Date.now();
        await poll('healthy after reboot', BOOT_TIMEOUT_MS, async () => guest.healthy(), 3000);
        figures.reboot_to_healthy_s = ((Date.now() - rebootStarted) / 1000).toFixed(0);
        const login = await guest.http('POST', '/api/login', { body: { login: 'admin', password } });
        if (login.status !== 200) throw new Error(`login after reboot: ${login.status}`);
        const fresh = (JSON.parse(login.text) as { token: string }).token;
        if ((await eventsFor(guest, fresh, account)) < 1) throw new Error('the event is gone after the reboot');
        const firstBoot = await guest.ssh(
          'systemctl show -p ActiveState --value vigil-first-boot; test -e /var/lib/vigil/initial-admin-password && echo generated || echo none',
        );
        if (!firstBoot.startsWith('inactive')) throw new Error(`vigil-first-boot ran again: ${firstBoot}`);
        return `event, account and receiver kept; healthy ${figures.reboot_to_healthy_s} s after the reboot`;
      },
    );

    await step('power off', async () => {
      await guest.ssh('systemctl poweroff').catch(() => undefined);
      if (!(await vm.waitExit(180_000))) throw new Error('qemu still running 180 s after poweroff');
      return '';
    });
  } finally {
    await vm.kill();
  }
  check.finish('image-check passed');
}

async function eventsFor(guest: Guest, token: string, account: string): Promise<number> {
  // Filtered by account: after the soak the newest hundred events are all the soak's.
  const res = await guest.http('GET', `/api/events?account=${account}&limit=100`, { token });
  if (res.status !== 200) throw new Error(`GET /api/events: ${res.status} ${res.text}`);
  const { items } = JSON.parse(res.text) as { items: { account: string }[] };
  return items.filter((e) => e.account === account).length;
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    check.finish(`FAILED: ${(err as Error).message}\n  console log: ${join(work, 'console.log')}`);
    process.exit(1);
  },
);
