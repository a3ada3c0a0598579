/**
 * Uploads are refused before a byte of their body is read when the caller is not logged in (docs/security.md
 * "Admission", door `upload`): the page's restore route used to put a 2 GiB body limit before its session
 * check, and hono's limit reads a chunked body whole first, so a 400 MiB POST without a cookie grew the
 * gateway by its size and got its 401 after the last byte. Real gateway, real HTTP on loopback; each upload
 * is a chunked body of at most 48 MiB sent a MiB at a time, and must be answered within the first 8 MiB.
 */
import { request } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway } from '../helpers/gateway.js';
import { tempDir } from '../helpers/temp-dir.js';

const MIB = 1024 * 1024;
const MAX_SENT = 48 * MIB;

/** POSTs a chunked body until the answer comes (or MAX_SENT is sent); the status and how much was sent by then. */
function upload(base: string, path: string): Promise<{ status: number; sentMiB: number; connection: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request(url, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/octet-stream', 'x-vigil-backup-passphrase': 'correct horse battery' },
    });
    req.on('response', (res) => {
      answered = true;
      res.resume();
      resolve({ status: res.statusCode ?? 0, sentMiB: sent / MIB, connection: String(res.headers.connection) });
      req.destroy();
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const chunk = Buffer.alloc(MIB, 0x41);
    const pump = (): void => {
      while (!answered && sent < MAX_SENT) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

test('an upload without a login is answered 401 before its body is read, on every upload path of page and API', async () => {
  const dir = tempDir();
  const { gateway, base } = await startGateway(dir.path);
  try {
    const rssBefore = process.memoryUsage().rss;
    for (const path of ['/system/restore', '/system/update', '/api/system/restore', '/api/system/update']) {
      const answer = await upload(base, path);
      assert.is(answer.status, 401, path);
      assert.ok(answer.sentMiB <= 8, `${path}: answered after ${answer.sentMiB} MiB were sent`);
      assert.is(answer.connection, 'close', `${path}: the socket closes, the rest is never read`);
    }
    const grown = (process.memoryUsage().rss - rssBefore) / MIB;
    assert.ok(grown < 32, `the process grew by ${grown.toFixed(0)} MiB`);
  } finally {
    await gateway.stop();
    dir.remove();
  }
});

test.run();
