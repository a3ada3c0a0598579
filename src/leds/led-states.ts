/**
 * From the health registry to the three LEDs' patterns (docs/leds.md): a pure function of the
 * components' states and figures, plus the little memory "a device was heard lately" needs.
 *
 *   power    slow blink while the self-check passes (event loop, journal writer, store);
 *            steady when it fails (and frozen, lit or dark, when the process hangs).
 *   link     steady: every receiver listening and a device connected (an open TCP connection,
 *            or frames on a UDP / serial / modem receiver within the last 15 minutes);
 *            fast blink: every receiver listening, no device; dark: a receiver down or none.
 *   trouble  dark when all is well, else the flash codes of patterns.ts.
 */
import type { ComponentHealth } from '../core/health.js';
import { DARK, HEARTBEAT, STEADY, WAITING, troublePattern, type BlinkPattern, type Trouble } from './patterns.js';

/** An output this many events behind the journal is "backlogged" even while connected. */
export const OUTPUT_BACKLOG_TROUBLE = 1000;
/** Frames within this window count as a connected device on receivers without connections. */
export const DEVICE_RECENT_MS = 15 * 60_000;

export interface LedStates {
  readonly power: BlinkPattern;
  readonly link: BlinkPattern;
  readonly trouble: BlinkPattern;
  readonly troubles: readonly Trouble[];
}

/** COM ports and modems, whatever their receiver or driver calls itself (kind or name). */
export function isPortOrModem(component: ComponentHealth): boolean {
  return /serial|modem|\bcom\b|com[-_ ]?port|tty/i.test(`${component.kind} ${component.name}`);
}

function isReceiver(component: ComponentHealth): boolean {
  return component.kind === 'receiver' || component.name.startsWith('rx:');
}

const down = (c: ComponentHealth): boolean => c.state === 'failed' || c.state === 'degraded' || c.state === 'stopped';

function troublesOf(components: readonly ComponentHealth[]): Trouble[] {
  const troubles: Trouble[] = [];
  const number = (value: unknown): number => (typeof value === 'number' ? value : 0);
  if (components.some((c) => c.kind === 'output' && (down(c) || number(c.metrics.backlog) >= OUTPUT_BACKLOG_TROUBLE)))
    troubles.push('output');
  if (components.some((c) => c.kind === 'supervision' && number(c.metrics.lost) > 0)) troubles.push('objectsLost');
  if (components.some((c) => isPortOrModem(c) && down(c))) troubles.push('portDown');
  // The store failing, or its file system low on space (kind 'storage', degraded: docs/store.md §Free space).
  if (components.some((c) => (c.kind === 'store' || c.kind === 'storage') && down(c))) troubles.push('store');
  if (components.some((c) => c.kind === 'first-boot' && c.state === 'failed')) troubles.push('firstBoot');
  if (components.some((c) => c.kind === 'update' && c.state !== 'ok')) troubles.push('updateRolledBack');
  return troubles;
}

/** Remembers when each receiver's frame count last moved: "a device was heard lately". */
export class DeviceActivity {
  private readonly frames = new Map<string, { count: number; changedAt: number }>();

  /** Whether a device is connected now, per the rule above; call on every evaluation. */
  connected(receivers: readonly ComponentHealth[], now: number): boolean {
    let any = false;
    for (const receiver of receivers) {
      if (typeof receiver.metrics.connections === 'number' && receiver.metrics.connections > 0) any = true;
      const count = typeof receiver.metrics.frames === 'number' ? receiver.metrics.frames : 0;
      const seen = this.frames.get(receiver.name);
      // First sight: frames counted since the receiver (re)started count as lately.
      if (!seen) this.frames.set(receiver.name, { count, changedAt: count > 0 ? now : -Infinity });
      else if (count !== seen.count) this.frames.set(receiver.name, { count, changedAt: now });
      if (now - this.frames.get(receiver.name)!.changedAt <= DEVICE_RECENT_MS) any = true;
    }
    for (const name of this.frames.keys()) if (!receivers.some((r) => r.name === name)) this.frames.delete(name);
    return any;
  }
}

export function ledStates(components: readonly ComponentHealth[], activity: DeviceActivity, now: number): LedStates {
  const selfCheck = components.find((c) => c.kind === 'self-check');
  const power = selfCheck && selfCheck.state !== 'ok' ? STEADY : HEARTBEAT;
  const receivers = components.filter(isReceiver);
  const connected = activity.connected(receivers, now);
  // degraded is up with a problem (a COM line open but silent): still listening; the trouble LED says the rest.
  const listening = receivers.length > 0 && receivers.every((r) => r.state === 'ok' || r.state === 'degraded');
  const link = !listening ? DARK : connected ? STEADY : WAITING;
  const troubles = troublesOf(components);
  return { power, link, trouble: troublePattern(troubles), troubles };
}
