/**
 * DC-09 codec throughput: frames per second through Dc09Framer + handleFrame (CRC, parse, decode, reply),
 * plain and AES-128/256. Each run is bounded to about 2 s.
 *
 *   node dist/bench/dc09-codec.js
 */
import { performance } from 'node:perf_hooks';
import { buildMessage } from '../src/protocols/dc09/encoder.js';
import { Dc09Framer } from '../src/protocols/dc09/frame.js';
import { handleFrame, type HandlerContext } from '../src/protocols/dc09/handler.js';
import { parseKey } from '../src/protocols/dc09/crypto.js';

const RUN_MS = 2000;
const BATCH = 500;

function frames(key: Buffer | null, now: number): Buffer {
  const list: Buffer[] = [];
  for (let i = 0; i < BATCH; i++) {
    list.push(
      buildMessage({
        token: i % 3 === 0 ? 'ADM-CID' : 'SIA-DCS',
        sequence: i % 10000,
        receiver: 1,
        line: 1,
        account: '001234',
        data: i % 3 === 0 ? '#001234|1130 01 015' : `#001234|Nri1/BA${String(i % 100).padStart(3, '0')}^Zone ${i}^`,
        timestamp: now,
        ...(key ? { key } : {}),
      }),
    );
  }
  return Buffer.concat(list);
}

function run(label: string, key: Buffer | null): void {
  const now = Date.UTC(2026, 0, 1);
  const stream = frames(key, now);
  const ctx: HandlerContext = {
    now,
    key,
    requireEncryption: false,
    checkPlainTimestamps: true,
    acceptLocalTime: false,
  };
  const framer = new Dc09Framer();
  let count = 0;
  let events = 0;
  const started = performance.now();
  while (performance.now() - started < RUN_MS) {
    // Chunks of 1400 bytes, like TCP segments.
    for (let pos = 0; pos < stream.length; pos += 1400) {
      for (const item of framer.push(stream.subarray(pos, pos + 1400))) {
        if (item.kind !== 'frame') continue;
        events += handleFrame(item.body, ctx).events.length;
        count++;
      }
    }
  }
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(
    `${label.padEnd(24)} ${Math.round(count / seconds)
      .toString()
      .padStart(9)} frames/s  (${count} frames, ${events} events, ${seconds.toFixed(2)} s)\n`,
  );
}

run('plain', null);
run('AES-128', parseKey('ABCDEFGHIJKLMNOP'));
run('AES-256', parseKey('ABCDEFGHIJKLMNOPQRSTUVWXYZ012345'));
