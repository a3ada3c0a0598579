import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { CLI, serveChild, waitHealthy } from './helpers/gateway-process.js';
import { freePort } from './helpers/net.js';
import { tempDir } from './helpers/temp-dir.js';

function httpsGet(port: number, path: string, ca: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        ca,
        servername: 'localhost',
        headers: token ? { authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function stopChild(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

test('vigil serve answers /health over HTTP and HTTPS, vigil token prints one JWT that the API accepts, SIGTERM exits 0', async () => {
  const dir = tempDir();
  const httpPort = await freePort();
  const httpsPort = await freePort();
  const child = serveChild(dir.path, httpPort, httpsPort, ['ignore', 'pipe', 'pipe']);
  let stdout = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  try {
    await waitHealthy(httpPort);
    assert.ok(stdout.includes('password:'), 'first-start banner on stdout');

    const result = spawnSync(
      process.execPath,
      [CLI, 'token', '--data-dir', dir.path, '--scopes', 'restart_services,device_control', '--minutes', '5'],
      { encoding: 'utf8' },
    );
    assert.is(result.status, 0, result.stderr);
    const lines = result.stdout.split('\n').filter(Boolean);
    assert.is(lines.length, 1);
    assert.match(lines[0]!, /^[\w-]+\.[\w-]+\.[\w-]+$/);

    const cert = readFileSync(join(dir.path, 'tls', 'cert.pem'), 'utf8');
    const health = await httpsGet(httpsPort, '/health', cert);
    assert.is(health.status, 200);
    const restart = await httpsGet(httpsPort, '/api/restart-services', cert, lines[0]);
    assert.is(restart.status, 200);
    assert.is(restart.body, '{"success":true}');
  } finally {
    const code = await stopChild(child);
    assert.is(code, 0, `exit ${code}; stderr: ${stderr.slice(-2000)}`);
    dir.remove();
  }
});

test('vigil token on a dir that was never served is a clear error, and bad flags exit 2', () => {
  const dir = tempDir();
  try {
    const missing = spawnSync(process.execPath, [CLI, 'token', '--data-dir', dir.path, '--scopes', 'settings'], {
      encoding: 'utf8',
    });
    assert.is(missing.status, 2);
    assert.is(missing.stdout, '');
    assert.match(missing.stderr, /not an initialised Vigil data dir/);
    const bad = spawnSync(process.execPath, [CLI, 'token', '--scopes', 'root'], { encoding: 'utf8' });
    assert.is(bad.status, 2);
    assert.match(bad.stderr, /unknown scope root/);
  } finally {
    dir.remove();
  }
});

test.run();
