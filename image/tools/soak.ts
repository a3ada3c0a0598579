/**
 * The watchdog soak of `./build.sh image-check --soak MINUTES` (docs/watchdog.md "Proof on the emulated
 * board"): DC-09 traffic and SSH activity on the box for a fixed time, then the proof that systemd never
 * killed the healthy gateway (no `Watchdog timeout`, no unattributed notification, NRestarts 0, the same
 * main PID) and that every ACKed event is in the journal.
 *
 * The load is what once killed an older gateway: SSH rounds of two sessions running `systemd-analyze
 * blame`, reading the journal, `rauc status` and `ps`, beside steady DC-09 traffic from several panels (one
 * TCP connection per frame, as a dial-up communicator sends) and the API polled like the page. A round
 * starts 20 s after the previous one started, or as soon as it ends when it took longer: under emulation a
 * round takes 80–100 s, so the real cadence is that. The soak fails with fewer than one round per
 * MIN_ROUND_MINUTES, and reports the rounds it did and how long they took.
 */
import type { Guest } from './guest.js';
import { sendEvent } from './update-box.js';

export interface SoakOptions {
  readonly guest: Guest;
  readonly token: string;
  readonly rxPort: number;
  readonly minutes: number;
  /** Panels sending at once; each waits `pauseMs` between frames. */
  readonly panels?: number;
  readonly pauseMs?: number;
  /** Progress lines (one a minute). */
  readonly log: (line: string) => void;
  /** Throws when the VM died (a dead VM is not a slow one). */
  readonly assertRunning: () => void;
}

export interface SoakResult {
  readonly acked: number;
  readonly refused: number;
  readonly sshRounds: number;
  /** Seconds per SSH round: fastest, median, slowest. */
  readonly roundSeconds: readonly [number, number, number];
  readonly stored: number;
  readonly pid: string;
}

const SSH_ACTIVITY = [
  'systemd-analyze blame > /dev/null',
  'journalctl -n 500 --no-pager > /dev/null',
  'rauc status > /dev/null',
  'ps aux > /dev/null',
].join('; ');

/** A round starts this long after the previous one started, at the earliest. */
const ROUND_EVERY_MS = 20_000;
/** The soak fails with fewer rounds than one per this many minutes. */
export const MIN_ROUND_MINUTES = 3;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function soak(options: SoakOptions): Promise<SoakResult> {
  const { guest, rxPort, minutes } = options;
  const panels = options.panels ?? 4;
  const pauseMs = options.pauseMs ?? 250;
  const pid = await guest.ssh('systemctl show -p MainPID --value vigil');
  const endsAt = Date.now() + minutes * 60_000;
  // Bounded in count as well as in time: at most one frame per panel every pauseMs.
  const maxFrames = Math.ceil((minutes * 60_000) / pauseMs) * panels;
  let sent = 0;
  let acked = 0;
  let refused = 0;
  let sshRounds = 0;
  const roundMs: number[] = [];

  const panel = async (index: number) => {
    const account = soakAccount(index);
    while (Date.now() < endsAt && sent < maxFrames) {
      sent += 1;
      if (await sendEvent(rxPort, account, 30_000).catch(() => false)) acked += 1;
      else refused += 1;
      await sleep(pauseMs);
    }
  };
  const sshActivity = async () => {
    while (Date.now() < endsAt) {
      options.assertRunning();
      const began = Date.now();
      await Promise.all([guest.ssh(SSH_ACTIVITY, 180_000), guest.ssh(SSH_ACTIVITY, 180_000)]);
      await guest.http('GET', '/api/status', { token: options.token });
      sshRounds += 1;
      roundMs.push(Date.now() - began);
      await sleep(Math.min(Math.max(0, began + ROUND_EVERY_MS - Date.now()), Math.max(0, endsAt - Date.now())));
    }
  };
  const progress = async () => {
    // Minute k's line comes k minutes after the start (the SSH read's own seconds do not add up), so
    // each minute is named once and the last line is the soak's end.
    const started = endsAt - minutes * 60_000;
    for (let minute = 1; Date.now() < endsAt; minute++) {
      await sleep(Math.max(0, Math.min(started + minute * 60_000, endsAt) - Date.now()));
      options.assertRunning();
      const now = await guest.ssh('systemctl show -p MainPID --value vigil; systemctl show -p NRestarts --value vigil');
      options.log(
        `soak ${Math.min(minute, minutes)}/${minutes} min: ${acked} ACKed, ${refused} not, ${sshRounds} SSH rounds; MainPID/NRestarts ${now.replace('\n', '/')}`,
      );
    }
  };
  await Promise.all([...Array.from({ length: panels }, (_, i) => panel(i)), sshActivity(), progress()]);

  const kills = await guest.ssh(
    "journalctl -b -o cat --no-pager | grep -E 'Cannot find unit for notify message|Watchdog timeout' || true",
  );
  const [pidAfter, restarts] = (
    await guest.ssh('systemctl show -p MainPID --value vigil; systemctl show -p NRestarts --value vigil')
  ).split('\n');
  if (kills.trim() || restarts !== '0' || pidAfter !== pid)
    throw new Error(`the gateway was disturbed: pid ${pid} -> ${pidAfter}, NRestarts ${restarts}\n${kills}`);
  let stored = 0;
  for (let i = 0; i < panels; i += 1) stored += await countEvents(guest, options.token, soakAccount(i));
  if (stored < acked) throw new Error(`${acked} events were ACKed during the soak, ${stored} are stored`);
  if (refused > acked / 100) throw new Error(`${refused} of ${sent} frames were not ACKed`);
  const sorted = [...roundMs].sort((a, b) => a - b).map((ms) => Math.round(ms / 1000));
  const roundSeconds = [sorted[0] ?? 0, sorted[Math.floor(sorted.length / 2)] ?? 0, sorted.at(-1) ?? 0] as const;
  const minRounds = Math.max(1, Math.floor(minutes / MIN_ROUND_MINUTES));
  if (sshRounds < minRounds)
    throw new Error(
      `${sshRounds} SSH rounds in ${minutes} min (${roundSeconds.join('/')} s each), fewer than one per ${MIN_ROUND_MINUTES} min (${minRounds})`,
    );
  return { acked, refused, sshRounds, roundSeconds, stored, pid };
}

function soakAccount(index: number): string {
  return `5A0${index.toString(16).toUpperCase()}`;
}

/** Every stored event of one account, following `next_cursor` (docs/api.md "GET /api/events"). */
export async function countEvents(guest: Guest, token: string, account: string): Promise<number> {
  let count = 0;
  let cursor = '';
  for (let page = 0; page < 10_000; page += 1) {
    const res = await guest.http('GET', `/api/events?account=${account}&limit=1000${cursor}`, { token });
    if (res.status !== 200) throw new Error(`GET /api/events: ${res.status} ${res.text}`);
    const body = JSON.parse(res.text) as { items: unknown[]; next_cursor: string | null };
    count += body.items.length;
    if (body.next_cursor === null) return count;
    cursor = `&cursor=${body.next_cursor}`;
  }
  throw new Error(`more than 10,000 pages of events for ${account}`);
}
