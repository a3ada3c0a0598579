/**
 * Writes receiver settings into a fresh data dir BEFORE the gateway's first start, through the
 * same SettingsService validation the API uses. The gateway then binds only these loopback ports
 * (the defaults would bind 0.0.0.0:10001) and needs no restart-services round trip.
 */
import { silentLogger } from '../../src/core/logger.js';
import { join } from 'node:path';
import { defaultValidationEnv } from '../../src/settings/environment.js';
import { SettingsService } from '../../src/settings/settings-service.js';
import { Store } from '../../src/store/store.js';

export interface ReceiverSpec {
  readonly id: number;
  readonly port: number;
  /** 6 or 16 characters: the receiver then also accepts AES (plain too, unless required). */
  readonly encryption_password?: string;
}

export interface SeedSpec {
  readonly tcp: readonly ReceiverSpec[];
  readonly udp: readonly ReceiverSpec[];
}

function list(kind: string, specs: readonly ReceiverSpec[]): Record<string, unknown>[] {
  return specs.map((r) => ({
    id: r.id,
    name: `bench ${kind} ${r.id}`,
    port: r.port,
    bind_address: '127.0.0.1',
    ...(r.encryption_password ? { encryption_password: r.encryption_password } : {}),
  }));
}

export async function seedReceivers(dataDir: string, spec: SeedSpec): Promise<void> {
  const store = new Store(join(dataDir, 'vigil.db'), silentLogger);
  await store.start();
  try {
    const settings = new SettingsService({ repo: store.settings, env: defaultValidationEnv(), logger: silentLogger });
    await settings.start();
    const result = await settings.update({
      receivers: { tcp_receivers: list('tcp', spec.tcp), udp_receivers: list('udp', spec.udp) },
    });
    await settings.stop();
    if (!result.ok) throw new Error(`receiver settings refused: ${result.errors.join('; ')}`);
  } finally {
    await store.stop();
  }
}
