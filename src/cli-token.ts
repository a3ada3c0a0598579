/**
 * `vigil token`: one signed JWT on stdout and nothing else — the installer's path to privileged scopes
 * on the box itself (whoever can read the data dir is already root of the gateway).
 */
import { existsSync } from 'node:fs';
import { TokenService, INSTALLER_SUBJECT } from './auth/tokens.js';
import type { CliCommand } from './cli-args.js';
import { silentLogger } from './core/logger.js';
import { UsageError } from './core/usage-error.js';
import { isInitialised } from './init/first-start.js';
import { validateStoredSettings } from './settings/validate.js';
import { Store } from './store/store.js';
import { storePath } from './store/store-path.js';

export async function token(command: Extract<CliCommand, { command: 'token' }>): Promise<void> {
  const notInitialised = new UsageError(
    `${command.dataDir} is not an initialised Vigil data dir (run 'vigil serve' once)`,
  );
  const dbPath = storePath(command.dataDir);
  if (!existsSync(dbPath)) throw notInitialised;
  // Read-only: the gateway may be running and owns the writer; WAL lets us read beside it.
  const store = new Store(dbPath, silentLogger, undefined, { readonly: true });
  await store.start();
  try {
    const raw = store.settings.load();
    const parsed = raw === null ? null : validateStoredSettings(raw);
    if (!parsed?.ok || !isInitialised(parsed.settings)) {
      throw notInitialised;
    }
    const secret = parsed.settings.api.api_jwt_secret;
    const tokens = new TokenService({ secret: () => secret, clock: { now: () => Date.now() } });
    const issued = await tokens.issueToken({
      sub: INSTALLER_SUBJECT,
      scopes: command.scopes,
      minutes: command.minutes,
    });
    process.stdout.write(issued.token + '\n');
  } finally {
    await store.stop();
  }
}
