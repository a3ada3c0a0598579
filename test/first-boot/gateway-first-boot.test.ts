import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '../../src/core/logger.js';
import { Gateway } from '../../src/main.js';
import { PASSWORD_FILE } from '../../src/init/first-start.js';
import { runFirstBoot } from '../../src/first-boot/apply.js';
import { PROVISION_FILE } from '../../src/init/provisioned-admin.js';
import { tempDir } from '../helpers/temp-dir.js';
import { freePort } from '../helpers/net.js';

/** First boot on a temporary card, then the real gateway on its data dir. */
async function provisionAndStart(
  setup: string,
): Promise<{ gateway: Gateway; base: string; data: string; banners: string[]; remove(): void }> {
  const dir = tempDir('vigil-first-boot-gw-');
  const boot = join(dir.path, 'boot');
  const root = join(dir.path, 'root');
  const data = join(dir.path, 'data');
  for (const d of [boot, join(root, 'usr/share/zoneinfo/Etc'), data]) mkdirSync(d, { recursive: true });
  writeFileSync(join(root, 'usr/share/zoneinfo/Etc/UTC'), 'TZif');
  writeFileSync(join(boot, 'vigil-setup.txt'), setup);
  await runFirstBoot({ bootDir: boot, root, dataDir: data, sshHostKeys: () => undefined });
  const banners: string[] = [];
  const gateway = new Gateway({
    dataDir: data,
    httpPort: await freePort(),
    httpsPort: 0,
    host: '127.0.0.1',
    logger: silentLogger,
    announce: (t) => banners.push(t),
  });
  await gateway.start();
  return { gateway, base: `http://127.0.0.1:${gateway.apiPorts().http}`, data, banners, remove: dir.remove };
}

async function login(base: string, password: string): Promise<Response> {
  return fetch(`${base}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login: 'admin', password }),
  });
}

test('the first account logs in with the password from vigil-setup.txt; the instance name is set', async () => {
  const box = await provisionAndStart('admin_password = correct horse battery\ninstance_name = Warehouse 3\n');
  try {
    assert.match(box.banners.join(''), /password: +as set in vigil-setup\.txt/);
    assert.not.ok(existsSync(join(box.data, PASSWORD_FILE)));
    assert.not.ok(existsSync(join(box.data, PROVISION_FILE)));
    assert.is((await login(box.base, 'generated-or-wrong')).status, 401);
    const res = await login(box.base, 'correct horse battery');
    assert.is(res.status, 200);
    const { token } = (await res.json()) as { token: string };
    const status = (await (
      await fetch(`${box.base}/api/status`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as {
      instance_name: string;
      components: { name: string; kind: string; state: string; detail: string }[];
    };
    assert.is(status.instance_name, 'Warehouse 3');
    const firstBoot = status.components.find((c) => c.name === 'first-boot');
    assert.equal(firstBoot && [firstBoot.kind, firstBoot.state, firstBoot.detail], [
      'first-boot',
      'ok',
      'vigil-setup.txt applied',
    ]);
    assert.is((await fetch(`${box.base}/health`)).status, 200);
  } finally {
    await box.gateway.stop();
    box.remove();
  }
});

test('a rejected setup file makes the first-boot component failed, naming the wrong lines', async () => {
  const box = await provisionAndStart('hostname = ok\nnetwork = sometimes\n');
  try {
    // Anonymous callers get the status word only (docs/api.md "GET /health"); the admin's token gets the lines.
    const anonymous = await fetch(`${box.base}/health`);
    assert.is(anonymous.status, 503);
    assert.equal(await anonymous.json(), { status: 'failing' });
    const { token } = (await (
      await login(box.base, readFileSync(join(box.data, PASSWORD_FILE), 'utf8').split('\n')[1]!)
    ).json()) as { token: string };
    const health = await fetch(`${box.base}/health`, { headers: { authorization: `Bearer ${token}` } });
    assert.is(health.status, 503);
    assert.equal(await health.json(), {
      status: 'failing',
      components: [
        {
          name: 'first-boot',
          state: 'failed',
          detail: "vigil-setup.txt rejected: line 2: network: must be 'dhcp' or 'static' (got 'sometimes')",
        },
      ],
    });
    // Nothing from the file was applied: the gateway made its own first password, as without a file.
    assert.ok(existsSync(join(box.data, PASSWORD_FILE)));
  } finally {
    await box.gateway.stop();
    box.remove();
  }
});

test.run();
