/**
 * What the qemu checks share while they run (docs/image.md "image-check", "update-check",
 * "channel-check"): steps printed with their times, the figures printed at the end, and the emulated
 * board that update-check and channel-check power on again and again (one console log per boot).
 */
import { join } from 'node:path';
import { boardVm, type CheckStart } from './card.js';
import { type Guest, poll as pollGuest } from './guest.js';
import type { Vm } from './vm.js';

/** The steps of one check, stamped with the time since it began, and its figures. */
export class CheckRun {
  readonly figures: Record<string, string> = {};
  private readonly t0 = Date.now();

  readonly stamp = (): string => `[${((Date.now() - this.t0) / 1000).toFixed(1).padStart(7)} s]`;

  /** Runs one step between its `...` and `ok` lines; a string it returns is printed after `ok`. */
  readonly step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    process.stdout.write(`${this.stamp()} ... ${name}\n`);
    const value = await run();
    const note = typeof value === 'string' && value ? `: ${value}` : '';
    process.stdout.write(`${this.stamp()} ok  ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)${note}\n`);
    return value;
  };

  /** The check's last lines: its verdict (`… passed`, `FAILED: …`), then every figure it took. */
  readonly finish = (verdict: string): void => {
    process.stdout.write(`${this.stamp()} ${verdict}\n`);
    for (const [name, value] of Object.entries(this.figures)) process.stdout.write(`  ${name}: ${value}\n`);
  };
}

/** The emulated board of one check: the card it boots, each power-on with its own console log. */
export class Board {
  vm: Vm | null = null;
  boots = 0;

  constructor(
    private readonly start: CheckStart,
    public disk: string,
  ) {}

  /** This boot's serial console log: `console-<boot>.log` in the work dir. */
  readonly consoleLog = (): string => join(this.start.work, `console-${this.boots}.log`);

  /** Boots `card` (by default the card it booted last). */
  readonly powerOn = (card = this.disk): void => {
    this.boots += 1;
    this.disk = card;
    this.vm = boardVm(this.start, card, this.consoleLog());
    this.vm.start();
  };

  /** The running VM; a step that needs one before the first power-on is a bug in the check. */
  readonly running = (): Vm => {
    if (!this.vm) throw new Error('the board was never powered on');
    return this.vm;
  };

  /** guest.ts's poll that fails at once, with qemu's own words, when qemu died: a dead VM is not a slow one. */
  readonly poll: typeof pollGuest = (what, ms, probe, interval) =>
    pollGuest(
      what,
      ms,
      async () => {
        this.vm?.assertRunning();
        return probe();
      },
      interval,
    );

  /** `systemctl poweroff` over SSH, and qemu gone within 180 s (or the check fails). */
  readonly powerOff = async (guest: Guest): Promise<void> => {
    await guest.ssh('systemctl poweroff').catch(() => undefined);
    if (!(await this.running().waitExit(180_000))) throw new Error('qemu still running 180 s after poweroff');
  };

  readonly kill = async (signal?: 'SIGTERM' | 'SIGKILL'): Promise<void> => {
    await this.vm?.kill(signal);
  };

  /** Interrupted (Ctrl-C, a timeout): the VM goes with the check. */
  readonly killOnSignals = (): void => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.on(signal, () => void this.kill().finally(() => process.exit(130)));
  };
}
