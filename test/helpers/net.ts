/** Loopback-only helpers: tests never bind or send beyond 127.0.0.1 / ::1. */
import { createServer } from 'node:net';

export const LOOPBACK = '127.0.0.1';

/** Asks the kernel for a free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
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
