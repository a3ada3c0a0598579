/**
 * Drives the status LEDs from the health registry (docs/leds.md). start() opens the lamps through
 * the hardware layer it is given (src/main.ts passes hw/'s GPIO driver), lights all three for the
 * lamp test, then every tick shows the patterns led-states.ts derives. A board without GPIO is
 * not a fault: one info line, no LEDs. A lamp that cannot be written is reported (component
 * `leds`, degraded) and never stops the gateway.
 */
import { performance } from 'node:perf_hooks';
import { describeError } from '../core/errors.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import { LAMP_NAMES, type LampName, type LampsOpened, type StatusLamps } from './lamp.js';
import { DeviceActivity, ledStates, type LedStates } from './led-states.js';
import { isLit, type BlinkPattern } from './patterns.js';

export const LEDS_HEALTH = 'leds';
export const LAMP_TEST_MS = 1000;
/** 50 ms: the shortest span (300 ms) is drawn within a sixth of its length. */
const TICK_MS = 50;
/** Figures (connections, backlog, lost) change without a health notification: re-read this often. */
const EVALUATE_MS = 1000;

export interface LedServiceDeps {
  readonly health: HealthRegistry;
  readonly open: () => Promise<LampsOpened>;
  readonly logger: Logger;
  readonly lampTestMs?: number;
  readonly tickMs?: number;
  readonly now?: () => number;
}

export class LedService implements Service {
  readonly name = 'leds';
  private readonly deps: LedServiceDeps;
  private readonly now: () => number;
  private lamps: StatusLamps | null = null;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private activity = new DeviceActivity();
  private states: LedStates | null = null;
  private evaluatedAt = -Infinity;
  private startedAt = 0;
  /** When each lamp's current pattern began (patterns run from their start). */
  private readonly patternSince = new Map<LampName, { pattern: BlinkPattern; since: number }>();
  private writeFailed = false;

  constructor(deps: LedServiceDeps) {
    this.deps = deps;
    this.now = deps.now ?? (() => performance.now());
  }

  /** The patterns shown now (null before start or without lamps). */
  get current(): LedStates | null {
    return this.states;
  }

  async start(): Promise<void> {
    if (this.lamps) return;
    const { health, logger } = this.deps;
    let opened: LampsOpened;
    try {
      opened = await this.deps.open();
    } catch (err) {
      logger.error('status LEDs unavailable', { error: describeError(err) });
      health.report(LEDS_HEALTH, 'leds', 'degraded', `status LEDs unavailable: ${describeError(err)}`);
      return;
    }
    if (!opened.lamps) {
      logger.info('status LEDs off', { reason: opened.reason });
      health.report(LEDS_HEALTH, 'leds', 'ok', `off: ${opened.reason}`);
      return;
    }
    logger.info('status LEDs on', { leds: opened.description });
    health.report(LEDS_HEALTH, 'leds', 'ok', opened.description);
    this.lamps = opened.lamps;
    this.activity = new DeviceActivity();
    this.startedAt = this.now();
    this.evaluatedAt = -Infinity;
    this.patternSince.clear();
    this.unsubscribe = health.onChange(() => (this.evaluatedAt = -Infinity));
    this.tick();
    this.timer = setInterval(() => this.tick(), this.deps.tickMs ?? TICK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    const lamps = this.lamps;
    this.lamps = null;
    this.states = null;
    this.deps.health.remove(LEDS_HEALTH);
    if (!lamps) return;
    try {
      lamps.close();
    } catch (err) {
      this.deps.logger.warn('cannot release the status LEDs', { error: describeError(err) });
    }
  }

  /** Draws one frame: the lamp test first, then each lamp's pattern at its own phase. */
  tick(): void {
    const lamps = this.lamps;
    if (!lamps) return;
    const now = this.now();
    const lampTest = now - this.startedAt < (this.deps.lampTestMs ?? LAMP_TEST_MS);
    if (!lampTest && now - this.evaluatedAt >= EVALUATE_MS) {
      this.states = ledStates(this.deps.health.snapshot(), this.activity, now);
      this.evaluatedAt = now;
    }
    for (const name of LAMP_NAMES) {
      let lit = true;
      const states = this.states;
      if (!lampTest && states) {
        const pattern = states[name];
        let shown = this.patternSince.get(name);
        if (!shown || shown.pattern.name !== pattern.name) {
          shown = { pattern, since: now };
          this.patternSince.set(name, shown);
        }
        lit = isLit(pattern, now - shown.since);
      }
      this.write(lamps, name, lit);
    }
  }

  private write(lamps: StatusLamps, name: LampName, lit: boolean): void {
    try {
      lamps[name].set(lit);
    } catch (err) {
      if (this.writeFailed) return;
      this.writeFailed = true;
      this.deps.logger.error('cannot write a status LED', { led: name, error: describeError(err) });
      this.deps.health.report(LEDS_HEALTH, 'leds', 'degraded', `cannot write the ${name} LED: ${describeError(err)}`);
    }
  }
}
