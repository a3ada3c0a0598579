/** #28.15: the services group removes the health entry of every member it stops, whatever the member did. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HealthRegistry } from '../../src/core/health.js';
import { silentLogger } from '../../src/core/logger.js';
import { ServiceGroup } from '../../src/core/service-group.js';
import type { Service } from '../../src/core/service.js';

/** A member that fails to start, reports `failed` under its name, and whose stop() leaves the entry. */
function failingMember(health: HealthRegistry, name: string): Service {
  return {
    name,
    async start() {
      health.report(name, 'receiver', 'failed', 'cannot bind');
      throw new Error('cannot bind');
    },
    async stop() {},
  };
}

test('a member no longer built leaves the registry when the group restarts; one still built reports again', async () => {
  const health = new HealthRegistry();
  let members = ['rx:udp:7', 'rx:tcp:1'];
  const group = new ServiceGroup(
    'services',
    () => members.map((name) => failingMember(health, name)),
    silentLogger,
    health,
  );
  await group.start();
  assert.equal(
    health
      .failing()
      .map((c) => c.name)
      .sort(),
    ['rx:tcp:1', 'rx:udp:7'],
  );
  members = ['rx:tcp:1'];
  await group.restart();
  assert.equal(
    health.snapshot().map((c) => c.name),
    ['rx:tcp:1'],
  );
  await group.stop();
  assert.equal(health.snapshot(), []);
});

test.run();
