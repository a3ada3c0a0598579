import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../helpers/temp-dir.js';

const WRITER = join(dirname(fileURLToPath(import.meta.url)), 'helpers', 'journal-writer.js');
const BATCH_SIZE = 10;
const KILL_AFTER_BATCHES = 25;

/** Runs the writer and SIGKILLs it as soon as it has reported `count` appended batches. */
function runAndKill(path: string, count: number): Promise<{ reported: number; signal: string | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, path, String(BATCH_SIZE)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let reported = 0;
    let buffer = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`writer did not report ${count} batches within 15 s: ${stderr}`));
    }, 15_000);
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) reported = Math.max(reported, Number(line));
      if (reported >= count) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (_code, signal) => {
      clearTimeout(timer);
      resolve({ reported, signal, stderr });
    });
  });
}

test('events whose append() returned survive a SIGKILL right after; no batch is half-stored', async () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'vigil.db');
    const { reported, signal, stderr } = await runAndKill(path, KILL_AFTER_BATCHES);
    assert.is(signal, 'SIGKILL', stderr);
    assert.ok(reported >= KILL_AFTER_BATCHES);
    // Reopen as the next run would (WAL recovery happens here).
    const db = new BetterSqlite3(path);
    const rows = db.prepare('SELECT text, count(*) AS n FROM events GROUP BY text').all() as {
      text: string;
      n: number;
    }[];
    const ids = db.prepare('SELECT id FROM events ORDER BY id').all() as { id: number }[];
    db.close();
    const perBatch = new Map(rows.map((r) => [Number(r.text.slice('batch:'.length)), r.n]));
    for (let batch = 1; batch <= reported; batch++) {
      assert.is(perBatch.get(batch), BATCH_SIZE, `batch ${batch} was reported appended`);
    }
    for (const [batch, n] of perBatch) assert.is(n, BATCH_SIZE, `batch ${batch} is complete`);
    // ids are dense: nothing in between was lost
    assert.equal(
      ids.map((r) => r.id),
      Array.from({ length: ids.length }, (_, i) => i + 1),
    );
  } finally {
    dir.remove();
  }
});

test.run();
