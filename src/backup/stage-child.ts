/**
 * The staging process stage-as-owner.ts starts as the data dir's owner: its options on descriptor 3
 * (one JSON line: data dir, passphrase, new identity), the backup file on stdin. The file is written to
 * an upload file in the data dir (new, never an existing name), staged from there by stageRestore
 * (stage-restore.ts), and removed; the answer goes to stdout as one JSON line (StageReply).
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { isVigilError } from '../core/errors.js';
import type { StageReply, StageRequest } from './stage-as-owner.js';
import { UPLOAD_PREFIX, stageRestore } from './stage-restore.js';

async function main(): Promise<StageReply> {
  const request = JSON.parse(readFileSync(3, 'utf8')) as StageRequest;
  const file = join(request.dataDir, `${UPLOAD_PREFIX}${randomUUID()}`);
  try {
    // 'wx': created here, never an entry that was already there (O_EXCL does not follow a symlink).
    await pipeline(process.stdin, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
    const header = await stageRestore({ ...request, file });
    return { ok: true, header };
  } catch (err) {
    return {
      ok: false,
      code: isVigilError(err) ? err.code : null,
      message: err instanceof Error ? err.message : String(err),
    };
  } finally {
    rmSync(file, { force: true });
  }
}

const reply = await main();
process.stdout.write(`${JSON.stringify(reply)}\n`);
