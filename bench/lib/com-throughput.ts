/**
 * COM receiver throughput (bench/serial.ts section "com"): a real COM receiver (the serial port layer of hw/serial,
 * the ingest and journal writer on a SQLite file) on one end of a socat pty, `vigil sim --serial`'s transmitter on
 * the other. A pty has no baud rate, so the transmitter paces both directions as the wire would (emulateBaud): the
 * figure is ACKed events/s as a fraction of what the line could carry if it were never idle (goal >= 90 %).
 */
import { join } from 'node:path';
import { serialLineFactory } from '../../hw/serial/index.js';
import { systemClock } from '../../src/core/clock.js';
import { HealthRegistry } from '../../src/core/health.js';
import { silentLogger } from '../../src/core/logger.js';
import type { ComReceiver } from '../../src/receivers/com-receiver.js';
import { ReceiverRuntime } from '../../src/receivers/receiver-runtime.js';
import { comReceiverSchema } from '../../src/settings/schema-receivers.js';
import { parseSerialSimArgs } from '../../src/sim/serial-sim-cli.js';
import { SerialSimulator, type SerialSimSummary } from '../../src/sim/serial-sim.js';
import { storeWithWriter } from '../../src/writer/store-with-writer.js';
import { PtyPair } from '../../test/helpers/pty-pair.js';
import { tempDir } from '../../test/helpers/temp-dir.js';
import * as v from 'valibot';

export interface ComPhase {
  readonly protocol: 'SIA-DC09' | 'MLR2';
  readonly baud: number;
  /** DC-09 frames in flight (MLR2: 1 by its protocol). */
  readonly window: number;
  readonly seconds: number;
}

export interface ComResult extends ComPhase {
  readonly summary: SerialSimSummary;
  readonly bytesPerEvent: number;
  /** Events/s the line carries at 100 % of its sending direction. */
  readonly wireEventsPerS: number;
}

/** One phase: a fresh store and receiver, the transmitter for about `seconds` of wire time (bounded in count and time). */
export async function runComPhase(phase: ComPhase): Promise<ComResult> {
  const dir = tempDir('vigil-bench-com-');
  const pty = new PtyPair();
  await pty.start();
  const health = new HealthRegistry();
  const { store, writer } = storeWithWriter(join(dir.path, 'vigil.db'), silentLogger, health, { clock: systemClock });
  await store.start();
  const lines = serialLineFactory({ health, logger: silentLogger });
  const runtime = new ReceiverRuntime({
    store,
    writer,
    health,
    clock: systemClock,
    logger: silentLogger,
    serial: lines,
  });
  const settings = v.parse(comReceiverSchema, {
    id: 1,
    name: 'bench COM',
    port_id: pty.a,
    baud_rate: phase.baud,
    protocol: phase.protocol,
  });
  const receiver = runtime.build({
    tcp_receivers: [],
    udp_receivers: [],
    com_receivers: [settings],
    modem_receivers: [],
  })[0] as ComReceiver;
  await receiver.start();
  const line = lines({
    path: pty.b,
    baudRate: phase.baud,
    dataBits: 8,
    parity: 'none',
    stopBits: 1,
    flowControl: 'none',
    owner: 'bench',
  });
  await line.start();
  try {
    const base = parseSerialSimArgs([
      '--serial',
      pty.b,
      '--protocol',
      phase.protocol,
      '--baud',
      String(phase.baud),
      '--emulate-baud',
    ])!.options;
    // Bytes per message on the wire, to size the run and the 100 % line.
    const bytesPerEvent = phase.protocol === 'MLR2' ? 21 : 60;
    const wireEventsPerS = phase.baud / base.bitsPerChar / bytesPerEvent;
    const events = Math.max(20, Math.round(wireEventsPerS * phase.seconds));
    const summary = await new SerialSimulator(line, {
      ...base,
      events,
      window: phase.window,
      heartbeatMs: 0,
      durationMs: (phase.seconds * 3 + 10) * 1000,
    }).run();
    const measured =
      summary.events_acked > 0 ? summary.bytes_out / (summary.events_acked + summary.retransmissions) : bytesPerEvent;
    return {
      ...phase,
      summary,
      bytesPerEvent: Math.round(measured * 10) / 10,
      wireEventsPerS: Math.round((phase.baud / base.bitsPerChar / measured) * 10) / 10,
    };
  } finally {
    await line.stop();
    await receiver.stop();
    await store.stop();
    await pty.close();
    dir.remove();
  }
}
