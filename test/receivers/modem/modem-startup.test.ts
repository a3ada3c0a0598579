/**
 * The start-up sequence's verdicts on AT+CPIN? (docs/modem.md §Start-up): a SIM state is a fact (READY goes on,
 * PUK and the like need a person: failed), an answer without one is out of step with the command (an answer a
 * stopped receiver was still owed) and only makes the start-up run again.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { finalResult } from '../../../src/protocols/at/results.js';
import type { AtAnswer } from '../../../src/receivers/modem/at-driver.js';
import { runStartup } from '../../../src/receivers/modem/modem-startup.js';
import { PinLedger } from '../../../src/receivers/modem/pin-ledger.js';

/** A modem that answers OK to everything, and `cpin` (information lines, final line) to AT+CPIN?. */
function modem(cpin: [string[], string]) {
  const sent: string[] = [];
  return {
    sent,
    deps: {
      send: async (command: string): Promise<AtAnswer> => {
        sent.push(command);
        const [lines, final] = command === 'AT+CPIN?' ? cpin : [[], 'OK'];
        return { lines, final: finalResult(final)! };
      },
      portId: '/dev/ttyUSB2',
      pin: undefined,
      pins: new PinLedger(),
      sleep: async () => undefined,
    },
  };
}

test('+CPIN: READY goes on to the rest of the sequence', async () => {
  const m = modem([['+CPIN: READY'], 'OK']);
  const result = await runStartup(m.deps);
  assert.ok(result.ok);
  assert.ok(m.sent.includes('AT+CMGF=0'));
});

test('an answer with no SIM state (a stale OK) is not a verdict on the SIM: not fatal, the start-up runs again', async () => {
  for (const answer of [
    [[], 'OK'],
    [[], 'ERROR'],
  ] as Array<[string[], string]>) {
    const result = await runStartup(modem(answer).deps);
    assert.equal(result, {
      ok: false,
      fatal: false,
      reason: 'no SIM state in the answer to AT+CPIN? (out of step); starting over',
    });
  }
});

test('a SIM state that needs a person is fatal with that state', async () => {
  assert.equal(await runStartup(modem([['+CPIN: SIM PUK'], 'OK']).deps), {
    ok: false,
    fatal: true,
    reason: 'SIM not ready: SIM PUK',
  });
  assert.equal(await runStartup(modem([[], '+CME ERROR: 10']).deps), {
    ok: false,
    fatal: true,
    reason: 'SIM not ready: SIM NOT INSERTED',
  });
});

test.run();
