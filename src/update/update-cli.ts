/**
 * `vigil update install FILE [--allow-downgrade]` and `vigil update status` on the box (docs/updates.md
 * "On the box"). Install runs installBundle, the code path of the API and the page, and prints each
 * stage. Exit codes: 0 installed (reboot to start it) / status shown; 1 refused or failed (the code and
 * rauc's words on stderr, nothing changed); 3 updates are not available on this system.
 */
import { createReadStream, statSync } from 'node:fs';
import { systemClock } from '../core/clock.js';
import { createLogger, parseLogLevel, stderrSink } from '../core/logger.js';
import { readVersion } from '../version.js';
import { installBundle, type InstallProgress } from './installer.js';
import { readUpdateRecord, rollbackUnacknowledged } from './update-record.js';
import { UpdateSystem, updateOptionsFromEnv } from './update-system.js';

export const EXIT_REFUSED = 1;
export const EXIT_UNAVAILABLE = 3;

interface Out {
  write(text: string): unknown;
}

function updateSystem(dataDir: string, env: NodeJS.ProcessEnv): UpdateSystem {
  return new UpdateSystem({
    dataDir,
    version: readVersion(),
    clock: systemClock,
    logger: createLogger('update', stderrSink, parseLogLevel(env.VIGIL_LOG_LEVEL, 'error')),
    ...updateOptionsFromEnv(env),
    ...(env.VIGIL_CMDLINE ? { cmdlinePath: env.VIGIL_CMDLINE } : {}),
    ...(env.VIGIL_BOOT_ENV ? { bootEnvPath: env.VIGIL_BOOT_ENV } : {}),
  });
}

export async function runUpdateInstall(
  command: { dataDir: string; file: string; allowDowngrade: boolean },
  env: NodeJS.ProcessEnv,
  out: Out,
  err: Out,
): Promise<number> {
  let size: number;
  try {
    size = statSync(command.file).size;
  } catch {
    err.write(`vigil: cannot read ${command.file}\n`);
    return EXIT_REFUSED;
  }
  let lastPercent = -10;
  const progress = (p: InstallProgress): void => {
    if (p.stage === 'receiving') {
      const percent = size > 0 ? Math.floor((p.bytes / size) * 100) : 100;
      if (percent >= lastPercent + 10 || p.bytes === size) {
        out.write(`copying the bundle: ${percent} %\n`);
        lastPercent = percent;
      }
    } else if (p.stage === 'verifying')
      out.write('checking the signature, the version and every byte of the payload\n');
    else out.write('installing into the other slot (this takes minutes)\n');
  };
  const outcome = await installBundle(updateSystem(command.dataDir, env), {
    body: createReadStream(command.file),
    allowDowngrade: command.allowDowngrade,
    onProgress: progress,
  });
  if (outcome.kind === 'refused') {
    err.write(`vigil: refused: ${outcome.code}: ${outcome.message}\nNothing was changed.\n`);
    return outcome.code === 'UPDATE_UNAVAILABLE' ? EXIT_UNAVAILABLE : EXIT_REFUSED;
  }
  const { record } = outcome;
  out.write(
    `installed: version ${record.to_version} in slot ${record.slot} (running ${record.from_version}).\n` +
      'Reboot to start it; it is confirmed once the gateway has run healthy on it, or the box returns to this version by itself.\n',
  );
  return 0;
}

export async function runUpdateStatus(
  command: { dataDir: string; json: boolean },
  env: NodeJS.ProcessEnv,
  out: Out,
): Promise<number> {
  const system = updateSystem(command.dataDir, env);
  const slots = await system.slotsReport();
  const record = readUpdateRecord(command.dataDir);
  const install = record.install;
  if (command.json) {
    out.write(
      `${JSON.stringify({ version: system.version, slots, update: install, rollback_unacknowledged: rollbackUnacknowledged(record) })}\n`,
    );
    return slots ? 0 : EXIT_UNAVAILABLE;
  }
  out.write(`running version: ${system.version}\n`);
  if (!slots) {
    out.write('system updates: not available on this system (no A/B slots or no RAUC)\n');
    return EXIT_UNAVAILABLE;
  }
  out.write(`booted slot: ${slots.booted}; the boot loader tries ${slots.primary ?? 'unknown'} first\n`);
  for (const name of ['A', 'B'] as const) {
    const s = slots[name];
    const tries = s.tries_left === null ? '' : `, ${s.tries_left} tries left`;
    out.write(
      `slot ${name}: ${s.state}, ${s.boot_status ?? 'no boot status'}, version ${s.version ?? 'unknown'}${s.trial ? ', on trial' : ''}${tries}\n`,
    );
  }
  if (install) {
    out.write(
      `last update: ${install.from_version} -> ${install.to_version} in slot ${install.slot}, ${install.installed_at}: ${install.outcome}${install.reason ? ` (${install.reason})` : ''}\n`,
    );
    if (rollbackUnacknowledged(record))
      out.write('the rollback is not acknowledged yet (System view, or POST /api/system/update/acknowledge)\n');
  } else out.write('last update: none\n');
  return 0;
}
