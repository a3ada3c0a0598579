/**
 * The start-up sequence of a GSM modem (docs/modem.md §Start-up), run at every open of its port
 * and after an ATZ: AT, ATE0, AT+CMEE=1, AT+CPIN? (the PIN entered at most once per gateway start,
 * src/receivers/modem/pin-ledger.ts), AT+CMGF=0 (PDU mode), AT+CNMI (new SMS announced by +CMTI),
 * AT+CLIP=1, AT+CREG=1, AT+CPMS (SMS storage in the SIM), then make, model and IMEI.
 */
import { infoText, parseCpin } from '../../protocols/at/results.js';
import type { AtAnswer, SendOptions } from './at-driver.js';
import type { PinLedger } from './pin-ledger.js';

export interface ModemIdentity {
  readonly manufacturer: string | null;
  readonly model: string | null;
  readonly imei: string | null;
}

export type StartupResult =
  | { readonly ok: true; readonly identity: ModemIdentity }
  /** `fatal`: retrying cannot help (the SIM needs a person): the receiver is `failed`. */
  | { readonly ok: false; readonly fatal: boolean; readonly reason: string };

export interface StartupDeps {
  send(command: string, options?: SendOptions): Promise<AtAnswer>;
  readonly portId: string;
  readonly pin: string | undefined;
  readonly pins: PinLedger;
  /** Waits ms (the SIM needs a moment after its PIN). */
  sleep(ms: number): Promise<void>;
}

/** TS 27.005 §3.4.1: <mode> 2 (buffer URCs while busy), <mt> 1 (store, announce with +CMTI). */
export const CNMI_COMMAND = 'AT+CNMI=2,1,0,0,0';
export const CPMS_COMMAND = 'AT+CPMS="SM","SM","SM"';
const SIM_READY_POLLS = 10;

export async function runStartup(d: StartupDeps): Promise<StartupResult> {
  // A modem that just powered up may miss the first AT: three tries.
  let alive = false;
  for (let i = 0; i < 3 && !alive; i++)
    alive = await d.send('AT').then(
      (a) => a.final.ok,
      () => false,
    );
  if (!alive) return { ok: false, fatal: false, reason: 'modem does not answer AT' };
  for (const command of ['ATE0', 'AT+CMEE=1']) {
    const a = await d.send(command);
    if (!a.final.ok) return { ok: false, fatal: false, reason: `${command}: ${a.final.line}` };
  }
  const sim = await unlockSim(d);
  if (sim) return sim;
  for (const command of ['AT+CMGF=0', CNMI_COMMAND, 'AT+CLIP=1', 'AT+CREG=1']) {
    const a = await d.send(command);
    if (!a.final.ok) return { ok: false, fatal: false, reason: `${command}: ${a.final.line}` };
  }
  // TS 27.005 §3.2.2: read, write and receive in the SIM, so +CMTI indexes are the ones AT+CMGR reads.
  // A modem without SIM storage answers ERROR and keeps its own default (not fatal).
  await d.send(CPMS_COMMAND, { expect: '+CPMS' });
  const info = async (command: string, prefix: string): Promise<string | null> => {
    const a = await d.send(command, { expect: prefix });
    return a.final.ok ? infoText(a.lines, prefix) : null;
  };
  return {
    ok: true,
    identity: {
      manufacturer: await info('AT+CGMI', '+CGMI'),
      model: await info('AT+CGMM', '+CGMM'),
      imei: await info('AT+CGSN', '+CGSN'),
    },
  };
}

async function cpin(d: StartupDeps): Promise<string | null> {
  const a = await d.send('AT+CPIN?', { expect: '+CPIN' });
  if (!a.final.ok) return a.final.line.includes('10') ? 'SIM NOT INSERTED' : null;
  return a.lines.map(parseCpin).find((s) => s !== null) ?? null;
}

/** null when the SIM is ready; otherwise why not. */
async function unlockSim(d: StartupDeps): Promise<StartupResult | null> {
  const state = await cpin(d);
  if (state === 'READY') return null;
  // No SIM state in the answer: it is out of step with the command (an answer the modem still owed a
  // receiver before a reopen), not a fact about the SIM. Starting over is the cure, not a person.
  if (state === null)
    return { ok: false, fatal: false, reason: 'no SIM state in the answer to AT+CPIN? (out of step); starting over' };
  if (state !== 'SIM PIN') return { ok: false, fatal: true, reason: `SIM not ready: ${state}` };
  if (d.pin === undefined) return { ok: false, fatal: true, reason: 'SIM PIN required but no sim_pin is set' };
  const before = d.pins.outcome(d.portId, d.pin);
  if (before === 'refused')
    return { ok: false, fatal: true, reason: 'SIM PIN refused; not entered again until the gateway restarts' };
  if (before !== undefined)
    return { ok: false, fatal: true, reason: 'SIM asks for its PIN again; it is entered once per gateway start' };
  d.pins.record(d.portId, d.pin, 'pending');
  const answer = await d.send(`AT+CPIN="${d.pin}"`, { timeoutMs: 10_000 }).catch(() => null);
  if (!answer?.final.ok) {
    d.pins.record(d.portId, d.pin, 'refused');
    return {
      ok: false,
      fatal: true,
      reason: `SIM PIN refused (${answer?.final.line ?? 'no answer'}); not entered again until the gateway restarts`,
    };
  }
  d.pins.record(d.portId, d.pin, 'accepted');
  for (let i = 0; i < SIM_READY_POLLS; i++) {
    if ((await cpin(d)) === 'READY') return null;
    await d.sleep(500);
  }
  return { ok: false, fatal: false, reason: 'SIM not ready after its PIN' };
}
