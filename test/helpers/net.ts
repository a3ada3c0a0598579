/** Loopback-only helpers: tests never bind or send beyond 127.0.0.1 / ::1. */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export const LOOPBACK = '127.0.0.1';

/**
 * A free TCP port on loopback for a server another process binds later. It comes from below the kernel's
 * ephemeral range: a port from that range (what `listen(0)` gives) can be taken by any outgoing
 * connection's local port in the gap between choosing and binding, and a busy suite makes many.
 */
export async function freePort(): Promise<number> {
  const [low, high] = quietRange();
  for (let attempt = 0; attempt < 50 && high > low; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await bindsAt(port)) return port;
  }
  return bindAndRelease(0);
}

/** [first, last) of the ports below the ephemeral range (Linux), or [0, 0) where that range is unknown. */
function quietRange(): [number, number] {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return first > 12_000 ? [10_000, first] : [0, 0];
  } catch {
    return [0, 0];
  }
}

async function bindsAt(port: number): Promise<boolean> {
  try {
    await bindAndRelease(port);
    return true;
  } catch {
    return false;
  }
}

function bindAndRelease(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, LOOPBACK, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(bound));
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls until the predicate holds or the deadline passes (bounded: never spins forever). The default
 * deadline is generous: it costs nothing when the condition comes, and a busy machine may be slow.
 */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  stepMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await sleep(stepMs);
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}
