/**
 * The path docs/modem.md §Trying it describes, with real processes: socat pty pair, `vigil serve`
 * with a modem receiver configured through the API, `vigil sim-modem` on the other end driven by
 * its stdin. SMS become events with transport "sms"; a call from the number configured for the object
 * (`known_callers`) is its link test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CLI, applySettings, serveChild, waitHealthy } from '../helpers/gateway-process.js';
import { LOOPBACK, freePort, waitFor } from '../helpers/net.js';
import { PtyPair } from '../helpers/pty-pair.js';
import { tempDir } from '../helpers/temp-dir.js';

interface Api {
  get(path: string): Promise<any>;
}

/** Calls with the headers applySettings returned (its token). */
function api(port: number, headers: Record<string, string>): Api {
  const base = `http://${LOOPBACK}:${port}`;
  return {
    async get(path) {
      const res = await fetch(base + path, { headers });
      const text = await res.text();
      return text.startsWith('{') ? JSON.parse(text) : text;
    },
  };
}

test('SMS and a test call through vigil serve, socat and vigil sim-modem', async () => {
  const dir = tempDir();
  const pty = new PtyPair();
  await pty.start();
  const httpPort = await freePort();
  let gateway: ChildProcess | null = null;
  let sim: ChildProcess | null = null;
  try {
    gateway = serveChild(dir.path, httpPort);
    await waitHealthy(httpPort);
    sim = spawn(process.execPath, [CLI, 'sim-modem', '--pty', pty.b, '--baud', '115200'], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const simOut: any[] = [];
    createInterface({ input: sim.stdout! }).on('line', (line) => simOut.push(JSON.parse(line)));
    await waitFor(() => simOut.length > 0, 10_000);

    // The simulated modem answers before the receiver is configured: its start-up talks to it.
    const headers = await applySettings(dir.path, httpPort, ['settings', 'events', 'objects', 'restart_services'], {
      receivers: {
        modem_receivers: [
          {
            id: 5,
            name: 'GSM',
            port_id: pty.a,
            baud_rate: 115200,
            known_callers: [{ account: '1234', number: '+37060000000' }],
          },
        ],
      },
    });
    const client = api(httpPort, headers);
    let modem: any = null;
    await waitFor(
      async () => {
        modem = (await client.get('/api/status')).receivers.find((r: any) => r.name === 'rx:modem:5');
        return modem?.state === 'ok';
      },
      15_000,
      100,
    ).catch(() => {
      throw new Error(`modem receiver not ok: ${JSON.stringify(modem)}`);
    });
    assert.equal(
      [modem.metrics.manufacturer, modem.metrics.imei, modem.metrics.csq, modem.metrics.registered],
      ['VIGIL-SIM', '356938035643809', 20, true],
    );
    // The modem's serial line belongs to receiver 5: /api/status shows it only to callers who see receiver 5.
    const port = (await client.get('/api/status')).components.find((c: any) => c.name === `serial:${pty.a}`);
    assert.is(port?.metrics.receiver_id, 5, JSON.stringify(port));

    sim.stdin!.write('sms +37060000000 1234 18 1 602 00 000 2\n');
    sim.stdin!.write('sms +37060000000 Power failure at the warehouse\n');
    let events: any[] = [];
    await waitFor(
      async () => {
        events = (await client.get('/api/events?limit=10&receiver=5')).items;
        return events.length >= 2;
      },
      10_000,
      100,
    );
    const [text, cid] = events;
    assert.equal(
      [cid.transport, cid.remote_address, cid.protocol, cid.code, cid.event_class],
      ['sms', '+37060000000', 'CONTACT-ID', '602', 'link_test'],
    );
    assert.equal([text.protocol, text.text], ['SMS-TEXT', 'Power failure at the warehouse']);

    const objectId = cid.object_id;
    const pingOf = async (): Promise<string | null> =>
      (await client.get('/api/objects?limit=10')).items.find((o: any) => o.id === objectId)?.last_ping ?? null;
    const before = await pingOf();
    sim.stdin!.write('ring +37060000000\n');
    await waitFor(async () => (await pingOf()) !== before, 10_000, 100);
  } finally {
    sim?.kill('SIGTERM');
    if (gateway) {
      const exited = new Promise((r) => gateway!.once('exit', r));
      gateway.kill('SIGTERM');
      await exited;
    }
    await pty.close();
    dir.remove();
  }
});

test.run();
