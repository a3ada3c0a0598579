/**
 * End to end: a real Gateway (store in a temp dir, receivers on loopback ports) and three
 * simulator fleets of 400, 200 and 200 events (TCP plain SIA-DCS with the device link, TCP AES ADM-CID,
 * UDP plain).
 * Every event a device saw ACKed must be in the journal (an ACK promises the event is stored).
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { INSTALLER_SUBJECT, TokenService } from '../../src/auth/tokens.js';
import { silentLogger } from '../../src/core/logger.js';
import { Gateway } from '../../src/main.js';
import { defaultValidationEnv } from '../../src/settings/environment.js';
import { SettingsService } from '../../src/settings/settings-service.js';
import type { AckRecord } from '../../src/sim/device-core.js';
import { resolveSimOptions, type SimOptionsInput } from '../../src/sim/sim-options.js';
import { Simulator } from '../../src/sim/simulator.js';
import { Store } from '../../src/store/store.js';
import { freePort } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';

const KEY = 'E2eReceiverKey16';

/** Receivers written before the first start: the gateway binds only these loopback ports. */
async function seedReceivers(dataDir: string, tcpPort: number, udpPort: number): Promise<void> {
  const store = new Store(join(dataDir, 'vigil.db'), silentLogger);
  await store.start();
  try {
    const settings = new SettingsService({ store: store, env: defaultValidationEnv(), logger: silentLogger });
    await settings.start();
    const result = await settings.update({
      receivers: {
        tcp_receivers: [{ id: 1, name: 'e2e tcp', port: tcpPort, bind_address: '127.0.0.1', encryption_password: KEY }],
        udp_receivers: [{ id: 2, name: 'e2e udp', port: udpPort, bind_address: '127.0.0.1' }],
      },
    });
    await settings.stop();
    assert.ok(result.ok, JSON.stringify(result));
  } finally {
    await store.stop();
  }
}

/** "account|sequence|code|zone" of what the device sent, read from its data block. */
function expectedKey(record: AckRecord): string {
  const sia = /\|Nri01\/(B[AR])(\d{3})$/.exec(record.data);
  if (sia) return `${record.account}|${record.sequence}|${sia[1]}|${sia[2]}`;
  const cid = /\|([13])(130) 01 (\d{3})$/.exec(record.data);
  if (!cid) throw new Error(`unexpected data ${record.data}`);
  return `${record.account}|${record.sequence}|${cid[2]}|${cid[3]}`;
}

test('gateway + simulator fleets: every ACKed event (TCP plain, TCP AES, UDP) is in the journal', async () => {
  const dir = tempDir('vigil-sim-e2e-');
  const tcpPort = await freePort();
  const udpPort = await freePort();
  await seedReceivers(dir.path, tcpPort, udpPort);
  const gateway = new Gateway({
    dataDir: dir.path,
    httpPort: 0,
    httpsPort: 0,
    host: '127.0.0.1',
    logger: silentLogger,
  });
  await gateway.start();
  try {
    const acked: AckRecord[] = [];
    // Each fleet sends a count of events (at 20 a second per device: about 2 s on an idle machine); the
    // duration is only the bound, and the ACK timeout is generous for a busy machine.
    const fleet = (input: Omit<SimOptionsInput, 'durationMs'>): Simulator =>
      new Simulator(resolveSimOptions({ durationMs: 60_000, ackTimeoutMs: 10_000, drainMs: 10_000, ...input }), {
        onAck: (r) => acked.push(r),
      });
    const runs = await Promise.all([
      fleet({
        port: tcpPort,
        devices: 10,
        ratePerDevice: 20,
        maxEvents: 400,
        accountBase: '00E000',
        uidBase: 'E2E000000000',
      }).run(),
      fleet({
        port: tcpPort,
        devices: 5,
        ratePerDevice: 20,
        maxEvents: 200,
        accountBase: '00E100',
        uidBase: 'E2E100000000',
        key: KEY,
        token: 'ADM-CID',
      }).run(),
      fleet({
        port: udpPort,
        transport: 'udp',
        devices: 5,
        ratePerDevice: 20,
        maxEvents: 200,
        accountBase: '00E200',
      }).run(),
    ]);
    for (const summary of runs) {
      assert.is(summary.events_sent, summary.transport === 'udp' || runs.indexOf(summary) === 1 ? 200 : 400);
      assert.is(summary.events_acked, summary.events_sent, JSON.stringify(summary));
      assert.is(summary.naks + summary.duhs, 0);
    }
    assert.is(runs[0]!.device_link.welcomes, 10, 'every TCP device was welcomed on the device link');
    assert.is(
      acked.length,
      runs.reduce((n, s) => n + s.events_acked, 0),
    );

    const stored = new Set<string>();
    for (let after = 0, round = 0; round < 100; round++) {
      const batch = gateway.store.events.readAfter(after, 1000);
      if (batch.length === 0) break;
      for (const e of batch) stored.add(`${e.account}|${e.sequence}|${e.code}|${e.zoneNo}`);
      after = batch[batch.length - 1]!.id;
    }
    const missing = acked.map(expectedKey).filter((key) => !stored.has(key));
    assert.equal(missing, [], `${missing.length} ACKed events are not in the journal`);
  } finally {
    await gateway.stop();
    dir.remove();
  }
});

test('control-device through the API reaches simulated devices: packets, and each fault as the gateway names it', async () => {
  const dir = tempDir('vigil-sim-e2e-');
  const tcpPort = await freePort();
  const httpPort = await freePort();
  await seedReceivers(dir.path, tcpPort, await freePort());
  const gateway = new Gateway({ dataDir: dir.path, httpPort, httpsPort: 0, host: '127.0.0.1', logger: silentLogger });
  await gateway.start();
  const fleets: Simulator[] = [];
  try {
    const secret = gateway.settings.current().api.api_jwt_secret;
    const tokens = new TokenService({ secret: () => secret, clock: { now: () => Date.now() } });
    const { token } = await tokens.issueToken({
      sub: INSTALLER_SUBJECT,
      scopes: ['device_control', 'omit_mpass'],
      minutes: 5,
    });
    const devices: [string, Omit<SimOptionsInput, 'port'>][] = [
      ['C0DE00000001', { link: { replyPackets: 2, replyData: 'ABCD' } }],
      ['C0DE00000002', { link: { fault: 'wrong-count' } }],
      ['C0DE00000003', { link: { fault: 'wrong-number', replyPackets: 2 } }],
      ['C0DE00000004', { link: { fault: 'bad' } }],
    ];
    for (const [i, [uid, input]] of devices.entries()) {
      const sim = new Simulator(
        resolveSimOptions({
          port: tcpPort,
          ratePerDevice: 0,
          durationMs: 20_000,
          uidBase: uid,
          accountBase: `00C0${i}`,
          ...input,
        }),
      );
      fleets.push(sim);
      sim.start();
    }
    const deadline = Date.now() + 5000;
    while (fleets.some((f) => f.stats.welcomes < 1) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const control = async (uid: string): Promise<Record<string, unknown>> => {
      const response = await fetch(`http://127.0.0.1:${httpPort}/api/control-device`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ partial_uid: uid.slice(-6), request_id: 'r1', data: '0102', response_required: true }),
      });
      assert.is(response.status, 200);
      return (await response.json()) as Record<string, unknown>;
    };
    const ok = await control('C0DE00000001');
    assert.equal(
      [ok.partial_uid, ok.request_id, ok.uid, ok.data, ok.error],
      ['000001', 'r1', 'C0DE00000001', ['ABCD', 'ABCD'], undefined],
    );
    assert.is(ok.hw_id, 'SIM-1');
    assert.is((await control('C0DE00000002')).error, 'INVALID_PACKET_COUNT');
    assert.is((await control('C0DE00000003')).error, 'INVALID_PACKET_NUMBER');
    assert.is((await control('C0DE00000004')).error, 'BAD_DATA');
    assert.equal(
      fleets.map((f) => f.stats.commandsReceived),
      [1, 1, 1, 1],
    );
  } finally {
    for (const f of fleets) await f.stop();
    await gateway.stop();
    dir.remove();
  }
});

test('the full gateway: a second simulator naming an enrolled UID is refused and journaled; the first keyring proves it again', async () => {
  const dir = tempDir('vigil-sim-e2e-');
  const tcpPort = await freePort();
  await seedReceivers(dir.path, tcpPort, await freePort());
  const gateway = new Gateway({
    dataDir: dir.path,
    httpPort: 0,
    httpsPort: 0,
    host: '127.0.0.1',
    logger: silentLogger,
  });
  await gateway.start();
  try {
    const options = resolveSimOptions({
      port: tcpPort,
      devices: 1,
      ratePerDevice: 0,
      durationMs: 600,
      uidBase: 'E2E900000001',
      accountBase: '00E900',
    });
    const first = new Simulator(options);
    assert.is((await first.run()).device_link.welcomes, 1);
    assert.ok(first.keyring.get('E2E900000001'), 'the simulator enrolled');
    assert.is(
      gateway.store.deviceKeys.get('E2E900000001')!.key!.length,
      32,
      'the gateway stored the key through its writer',
    );
    const stranger = await new Simulator(options).run();
    assert.equal([stranger.device_link.welcomes, stranger.device_link.refusals], [0, 1]);
    const again = await new Simulator(options, { keyring: first.keyring }).run();
    assert.is(again.device_link.welcomes, 1, 'the enrolled key proves the UID on a new run');
    const deadline = Date.now() + 3000;
    let texts: string[] = [];
    while (Date.now() < deadline) {
      texts = gateway.store.events
        .readAfter(0, 1000)
        .map((e) => e.text ?? '')
        .filter((t) => t.startsWith('Device identity conflict'));
      if (texts.length > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(texts, ['Device identity conflict (UID E2E900000001 from 127.0.0.1: already_enrolled)']);
    assert.is(gateway.health.get('link-identity:1')?.metrics.conflicts, 1);
  } finally {
    await gateway.stop();
    dir.remove();
  }
});

test.run();
