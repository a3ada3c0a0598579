/**
 * Control-device round trip over HTTP (issue 3 target: p99 < 10 ms over the device's own reply
 * time). Gateway in a child process (CPU 1); 10 simulated devices connect over TCP and send
 * VL-HELLO; POST /api/control-device with response_required is timed from the request to the
 * complete HTTP reply, one request at a time, then 10 at once (one per device). The devices
 * answer at once, then (a second fleet) after a fixed 50 ms. "Over the device" is the round trip
 * minus the time the simulated device itself held that command (measured in the device, so a
 * late timer on the device side is not charged to the gateway).
 *
 *   node dist/bench/command.js            (BENCH_REQUESTS=300)
 */
import { LatencyHistogram } from '../src/sim/latency-histogram.js';
import { deviceUid } from '../src/sim/identity.js';
import { resolveSimOptions } from '../src/sim/sim-options.js';
import { Simulator } from '../src/sim/simulator.js';
import { PINNING, freePort, pinSelf, sleep, startGatewayChild, type GatewayChild } from './lib/gateway-child.js';
import { formatTable, verdict } from './lib/table.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const DEVICES = 10;
const DELAYS = [0, 50];

function print(text: string): void {
  process.stdout.write(text + '\n');
}

interface Result {
  readonly delay: number;
  readonly mode: string;
  readonly ok: number;
  readonly errors: Map<string, number>;
  readonly h: LatencyHistogram;
  /** Round trip minus the device's own holding time. */
  readonly over: LatencyHistogram;
}

/** Time each device held its last command (ms), by UID: filled by the simulator's onCommand hook. */
const held = new Map<string, number>();

async function command(gateway: GatewayChild, uid: string, n: number): Promise<{ ms: number; error: string | null }> {
  const started = performance.now();
  const reply = await gateway.api('POST', '/api/control-device', {
    partial_uid: uid,
    request_id: `r${n}`,
    data: '0102',
    response_required: true,
  });
  const ms = performance.now() - started;
  if (reply.status !== 200) return { ms, error: `HTTP ${reply.status} ${reply.text.slice(0, 60)}` };
  const body = JSON.parse(reply.text) as { error?: string; data?: string[] };
  if (body.error) return { ms, error: body.error };
  return { ms, error: body.data?.[0] === '0102' ? null : `unexpected data ${JSON.stringify(body.data)}` };
}

async function measure(
  gateway: GatewayChild,
  uids: readonly string[],
  delay: number,
  parallel: number,
  count = REQUESTS,
): Promise<Result> {
  const h = new LatencyHistogram();
  const over = new LatencyHistogram();
  const errors = new Map<string, number>();
  let ok = 0;
  let next = 0;
  const worker = async (lane: number): Promise<void> => {
    // One lane per device: commands to one device are serialised by the gateway anyway.
    for (let n = next++; n < count; n = next++) {
      const uid = uids[lane % uids.length]!;
      held.delete(uid);
      const r = await command(gateway, uid, n);
      if (r.error) errors.set(r.error, (errors.get(r.error) ?? 0) + 1);
      else {
        ok++;
        h.record(r.ms);
        over.record(Math.max(0, r.ms - (held.get(uid) ?? 0)));
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, (_, lane) => worker(lane)));
  return { delay, mode: parallel === 1 ? 'sequential' : `${parallel} parallel`, ok, errors, h, over };
}

async function main(): Promise<void> {
  print(
    `command bench: ${pinSelf(0)}${PINNING ? ', gateway on CPU 1' : ''}; ${REQUESTS} requests per mode, ${DEVICES} devices`,
  );
  const port = await freePort();
  const gateway = await startGatewayChild({ receivers: { tcp: [{ id: 1, port }], udp: [] } });
  const results: Result[] = [];
  try {
    for (const delay of DELAYS) {
      const uidBase = (0xc00000000000 + delay * 0x1000).toString(16).toUpperCase();
      const sim = new Simulator(
        resolveSimOptions({
          port,
          devices: DEVICES,
          ratePerDevice: 0,
          durationMs: 600_000,
          uidBase,
          accountBase: (0x300000 + delay * 0x100).toString(16).toUpperCase(),
          link: { replyDelayMs: delay },
        }),
        { onCommand: (c) => held.set(c.uid, c.repliedAt - c.receivedAt) },
      );
      sim.start();
      try {
        if (!(await sim.waitConnected(DEVICES, 20_000))) throw new Error('devices did not connect');
        // The HELLO must have registered the devices before the first command.
        const deadline = performance.now() + 10_000;
        while (sim.stats.welcomes < DEVICES && performance.now() < deadline) await sleep(20);
        const uids = Array.from({ length: DEVICES }, (_, i) => deviceUid(uidBase, i));
        await measure(gateway, uids, delay, 1, 30); // warm-up: JIT, HTTP keep-alive, statements
        results.push(await measure(gateway, uids, delay, 1));
        results.push(await measure(gateway, uids, delay, DEVICES));
      } finally {
        await sim.stop();
      }
    }
  } finally {
    await gateway.stop();
  }
  const rows = results.map((r) => [
    `${r.delay} ms`,
    r.mode,
    r.ok,
    r.h.percentile(50).toFixed(2),
    r.h.percentile(99).toFixed(2),
    r.h.maxMs.toFixed(1),
    r.over.percentile(50).toFixed(2),
    r.over.percentile(99).toFixed(2),
    [...r.errors].map(([e, n]) => `${e} x${n}`).join(', ') || '-',
  ]);
  print(
    '\n' +
      formatTable(['device delay', 'mode', 'ok', 'p50 ms', 'p99 ms', 'max ms', 'over p50', 'over p99', 'errors'], rows),
  );
  for (const r of results.filter((x) => x.mode === 'sequential')) {
    const over = r.over.percentile(99);
    print(
      `target: p99 < 10 ms over the device's reply time (${r.delay} ms): ${over.toFixed(2)} ms ${verdict(over < 10 && r.ok === REQUESTS)}`,
    );
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`command bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
