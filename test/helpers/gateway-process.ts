/** `vigil serve` as a child process on loopback, and the wait for its /health = 200 (bounded). */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LOOPBACK, waitFor } from './net.js';

export const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

export function serveChild(dataDir: string, httpPort: number, httpsPort = 0, stdio: StdioOptions = 'ignore'): ChildProcess {
  return spawn(
    process.execPath,
    [CLI, 'serve', '--data-dir', dataDir, '--http-port', String(httpPort), '--https-port', String(httpsPort), '--host', LOOPBACK],
    { stdio, env: { ...process.env, VIGIL_LOG_LEVEL: 'error' } },
  );
}

/** Resolves once GET /health answers 200; the error names the last answer seen. */
export async function waitHealthy(httpPort: number, timeoutMs = 20_000): Promise<void> {
  let last = '';
  await waitFor(async () => {
    try {
      const res = await fetch(`http://${LOOPBACK}:${httpPort}/health`);
      last = `${res.status} ${await res.text()}`;
      return res.status === 200;
    } catch (err) {
      last = String(err);
      return false;
    }
  }, timeoutMs, 50).catch(() => {
    throw new Error(`/health never 200; last answer: ${last}`);
  });
}
