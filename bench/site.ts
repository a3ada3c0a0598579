/**
 * A site (issue 9): 1,000 TCP devices, each with a NULL link test every 60 s, 1 event/s over the
 * whole site, for 10 minutes. Prints what the gateway wrote to storage (all threads,
 * /proc/<pid>/io write_bytes) per hour and per day, its CPU % of one core and its RSS.
 * and per stored event (the SD card's wear at a site's rate). Goal: under 50 MB written per day.
 * Gateway on CPU 1, simulator on CPU 0, loopback only; every loop bounded by the run time.
 *
 *   node dist/bench/site.js
 * BENCH_SITE_S=600 (measured seconds), BENCH_SITE_SETTLE_S=200, BENCH_SITE_DEVICES=1000,
 * BENCH_GATEWAY_CLI=<other build>, BENCH_FSYNC_US=3000 (the gateway's flushes that much slower,
 * bench/lib/slowsync.ts; a list runs the site once per latency).
 */
import { loadavg } from 'node:os';
import { resolveSimOptions } from '../src/sim/sim-options.js';
import { Simulator } from '../src/sim/simulator.js';
import { PINNING, freePort, pinSelf, sleep, startGatewayChild } from './lib/gateway-child.js';
import { flushEnv, flushLabel, parseFsyncList } from './lib/slowsync.js';
import { verdict } from './lib/table.js';

const SECONDS = Math.min(3600, Number(process.env.BENCH_SITE_S ?? 600));
const DEVICES = Math.min(5000, Number(process.env.BENCH_SITE_DEVICES ?? 1000));
const LINK_TEST_MS = 60_000;
const EVENTS_PER_S = 1;
/**
 * The start is a burst, not the steady state: registrations; each device's first ping since the
 * gateway started, stored at once (docs/receivers.md "markSeen throttling"); and the link-test
 * period the tracker learns from a device's third link test and stores once (one commit per
 * device). The simulator spreads each round over one whole interval, so measuring starts three
 * intervals plus 20 s after all connected (BENCH_SITE_SETTLE_S overrides).
 */
const SETTLE_MS = Math.max(0, Number(process.env.BENCH_SITE_SETTLE_S ?? (3 * LINK_TEST_MS + 20_000) / 1000)) * 1000;

function print(text: string): void {
  process.stdout.write(text + '\n');
}

async function main(): Promise<void> {
  for (const us of parseFsyncList(process.env.BENCH_FSYNC_US)) await site(us);
}

async function site(fsyncUs: number): Promise<void> {
  print(
    `site bench: ${pinSelf(0)}${PINNING ? ', gateway on CPU 1' : ''}; ${DEVICES} devices, link test every ${LINK_TEST_MS / 1000} s, ${EVENTS_PER_S} event/s, ${SECONDS} s measured; ${flushLabel(fsyncUs)}`,
  );
  print(
    `gateway: ${process.env.BENCH_GATEWAY_CLI ?? 'this build'}; load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const port = await freePort();
  const gateway = await startGatewayChild({ receivers: { tcp: [{ id: 1, port }], udp: [] }, env: flushEnv(fsyncUs) });
  const sim = new Simulator(
    resolveSimOptions({
      port,
      transport: 'tcp',
      devices: DEVICES,
      totalRate: EVENTS_PER_S,
      linkTestIntervalMs: LINK_TEST_MS,
      connectRate: 500,
      accountBase: '300000',
      durationMs: SECONDS * 1000 + SETTLE_MS + 120_000,
      drainMs: 0,
      ackTimeoutMs: 10_000,
    }),
  );
  try {
    sim.start();
    await sim.waitConnected(DEVICES, 60_000);
    await sleep(SETTLE_MS);
    const s = sim.stats;
    const acked0 = s.eventsAcked;
    const io0 = gateway.writeBytes();
    const cpu0 = gateway.cpuSeconds();
    const t0 = performance.now();
    let peakRss = gateway.rssKiB();
    const deadline = t0 + SECONDS * 1000;
    while (performance.now() < deadline) {
      await sleep(Math.min(5000, deadline - performance.now()));
      peakRss = Math.max(peakRss, gateway.rssKiB());
    }
    const seconds = (performance.now() - t0) / 1000;
    const bytes = gateway.writeBytes() - io0;
    const cpuPct = ((gateway.cpuSeconds() - cpu0) / seconds) * 100;
    const perHour = (bytes / seconds) * 3600;
    const perDayMb = (perHour * 24) / 1e6;
    print(
      `settled ${(SETTLE_MS / 1000).toFixed(0)} s after all connected; events ACKed: ${s.eventsAcked - acked0} in ${seconds.toFixed(0)} s; connected ${s.connected}; timeouts ${s.ackTimeouts}`,
    );
    print(
      `written: ${bytes} bytes = ${(perHour / 1e6).toFixed(2)} MB/hour = ${perDayMb.toFixed(1)} MB/day ${verdict(perDayMb < 50)} (goal < 50 MB/day)`,
    );
    const events = s.eventsAcked - acked0;
    print(
      `written per stored event: ${Math.round(bytes / Math.max(1, events))} bytes (sightings and link tests included)`,
    );
    print(
      `gateway CPU: ${cpuPct.toFixed(2)} % of one core; RSS ${(gateway.rssKiB() / 1024).toFixed(1)} MiB (peak ${(peakRss / 1024).toFixed(1)} MiB)`,
    );
    print(
      `load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await sim.stop();
    await gateway.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`site bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
