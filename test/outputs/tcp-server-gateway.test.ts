/**
 * A TCP server output in the running gateway: saved through the settings service, started by restart-services in
 * the output worker; a client from 127.0.0.2 (only 127.0.0.1 allowed) is closed, journaled by the main thread as
 * output_client_refused, and that event reaches the allowed automation client as an MLR2 line under the output oid.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loginToken, startGateway } from '../helpers/gateway.js';
import { freePort, waitFor } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';
import { AutomationClient } from './helpers/automation-client.js';

test('a stranger is refused and journaled; the allowed automation client receives the refusal as an event', async () => {
  const dir = tempDir();
  const { gateway, base } = await startGateway(dir.path);
  const clients: AutomationClient[] = [];
  try {
    const port = await freePort();
    const saved = await gateway.settings.update({
      users: [
        {
          id: 1,
          login: 'operator',
          password: 'operator-password-1',
          token_time: 60,
          scopes: ['events'],
          visible_receivers: { all: true, custom: [] },
        },
      ],
      outputs: [
        {
          id: 1,
          name: 'Automation connects',
          type: 5,
          protocol: 'MLR2',
          identificator: `127.0.0.1:${port}`,
          oid: 0x1f,
          receiver_number: 1,
          line_number: 1,
          tcp_server: { allowed_clients: ['127.0.0.1'] },
        },
      ],
    });
    assert.ok(saved.ok);
    await gateway.services.restart();
    await waitFor(() => gateway.health.get('out:1')?.metrics.listening === `127.0.0.1:${port}`, 5000);
    const friend = new AutomationClient({ protocol: 'MLR2', port, localAddress: '127.0.0.1' });
    clients.push(friend);
    await friend.connect();
    await waitFor(() => gateway.health.get('out:1')?.state === 'ok', 5000);
    assert.match(String(gateway.health.get('out:1')?.metrics.client), /^127\.0\.0\.1:\d+$/);

    const stranger = new AutomationClient({ protocol: 'MLR2', port, localAddress: '127.0.0.2' });
    clients.push(stranger);
    await stranger.connect();
    await waitFor(() => stranger.closed, 3000);
    await waitFor(() => friend.texts().includes('5011 18001FE42100000'), 5000);
    assert.equal(stranger.messages, []);
    const row = gateway.store.events.readAfter(0, 100).find((e) => e.code === '421');
    assert.match(row?.text ?? '', /^Output client refused \(output 1: 127\.0\.0\.2:\d+ is not on the allow-list\)$/);
    await waitFor(() => gateway.health.get('out:1')?.metrics.refused_clients === 1, 3000);
    assert.is(gateway.health.get('out:1')?.state, 'ok', 'the connected client is not disturbed');
    // GET /api/status shows where the output listens, its client and the refusal.
    const token = await loginToken(base, 'operator', 'operator-password-1');
    const status = (await (
      await fetch(`${base}/api/status`, { headers: { Authorization: `Bearer ${token}` } })
    ).json()) as {
      outputs: Array<{ name: string; state: string; metrics: Record<string, unknown> }>;
    };
    const out = status.outputs.find((o) => o.name === 'out:1');
    assert.is(out?.state, 'ok');
    assert.is(out?.metrics.listening, `127.0.0.1:${port}`);
    assert.match(String(out?.metrics.client), /^127\.0\.0\.1:\d+$/);
    assert.is(out?.metrics.refused_clients, 1);
  } finally {
    for (const c of clients) c.close();
    await gateway.stop();
    dir.remove();
  }
});

test.run();
