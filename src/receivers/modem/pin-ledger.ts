/**
 * SIM PIN entries for the gateway's whole life (kept by the ReceiverRuntime across receiver
 * restarts): a PIN value is entered at most once per start of the gateway on a port, so a port
 * reopen, an ATZ recovery or a restart of the services never enters it again — a refused PIN
 * retried in a loop would lock the SIM (3GPP TS 27.007 §8.3: three wrong PINs ask for the PUK).
 * A different PIN value set by the installer is a new decision and may be entered once.
 */
export type PinOutcome = 'accepted' | 'refused' | 'pending';

export class PinLedger {
  private readonly entries = new Map<string, PinOutcome>();

  /** Whether this PIN may be entered on this port now (it never was). */
  mayEnter(portId: string, pin: string): boolean {
    return !this.entries.has(key(portId, pin));
  }

  /** What happened to this PIN on this port, if it was entered. */
  outcome(portId: string, pin: string): PinOutcome | undefined {
    return this.entries.get(key(portId, pin));
  }

  record(portId: string, pin: string, outcome: PinOutcome): void {
    this.entries.set(key(portId, pin), outcome);
  }
}

function key(portId: string, pin: string): string {
  return `${portId}\u0000${pin}`;
}
