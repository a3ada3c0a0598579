import { createServer } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HealthRegistry } from '../src/core/health.js';
import { silentLogger } from '../src/core/logger.js';
import { systemClock } from '../src/core/clock.js';
import { Store } from '../src/store/store.js';
import { buildOutput } from '../src/outputs/index.js';

async function main() {
  let count = 0; let first = 0; let last = 0;
  const server = createServer((s) => { s.setNoDelay(true); s.on('data', (c: Buffer) => { let n = 0; for (const b of c) if (b === 0x14) n++; if (n) { if (!count) first = performance.now(); count += n; last = performance.now(); s.write(Buffer.alloc(n, 6)); } }); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as any).port;
  const dir = mkdtempSync(join(tmpdir(), 'outexp-'));
  const store = new Store(join(dir, 'db'), silentLogger); await store.start();
  store.cursors.reset(1, 0);
  const N = Number(process.env.N ?? 50000);
  for (let i = 0; i < N; i += 1000) store.events.append(Array.from({ length: 1000 }, (_, j) => ({ receivedAt: 0, receiverId: 1, receiverKind: 'tcp' as const, account: '1234', protocol: 'ADM-CID', encrypted: false, eventClass: 'alarm' as const, qualifier: 'E' as const, code: '130', groupNo: '01', zoneNo: (i + j) % 4096 ? ((i+j)%4096).toString(16) : '0', raw: Buffer.alloc(10) })));
  const out = buildOutput({ id: 1, name: 'x', type: 1, protocol: 'MLR2', identificator: `127.0.0.1:${port}`, oid: 1, receiver_number: 1, line_number: 1, filters: { receivers: [], event_classes: [] }, enabled: true } as any, { store, health: new HealthRegistry(), logger: silentLogger, clock: systemClock });
  const t0 = performance.now();
  await out.start();
  while (count < N && performance.now() - t0 < 60000) await new Promise((r) => setTimeout(r, 10));
  console.log(`drained ${count} in ${((last - t0) / 1000).toFixed(2)} s: ${Math.round(count / ((last - first) / 1000))}/s`);
  await out.stop(); await store.stop(); server.close();
}
main();
