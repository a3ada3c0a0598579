#!/usr/bin/env node
/**
 * The `vigil` command. serve runs the gateway until SIGTERM/SIGINT; token prints one signed JWT
 * (the installer's path to privileged scopes on the box itself) and nothing else.
 */
import { existsSync } from 'node:fs';
import { TokenService, INSTALLER_SUBJECT } from './auth/tokens.js';
import { parseCli, USAGE, type CliCommand } from './cli-args.js';
import { UsageError } from './core/usage-error.js';
import { describeError } from './core/errors.js';
import { createLogger, parseLogLevel, silentLogger, stderrSink } from './core/logger.js';
import { standaloneSerialLines } from './gateway/hardware.js';
import { Gateway } from './main.js';
import { isInitialised } from './init/first-start.js';
import { validateStoredSettings } from './settings/validate.js';
import { Store } from './store/store.js';
import { readVersion } from './version.js';
import { storePath } from './store/store-path.js';

async function serve(command: Extract<CliCommand, { command: 'serve' }>): Promise<void> {
  const logger = createLogger('vigil', stderrSink, parseLogLevel(process.env.VIGIL_LOG_LEVEL));
  const gateway = new Gateway({
    dataDir: command.dataDir,
    ...(command.httpPort !== undefined ? { httpPort: command.httpPort } : {}),
    ...(command.httpsPort !== undefined ? { httpsPort: command.httpsPort } : {}),
    ...(command.host !== undefined ? { host: command.host } : {}),
    logger,
    announce: (text) => process.stdout.write(text),
    // POST /api/system/restart: a clean stop and exit 0; systemd's Restart=always starts the gateway again.
    requestStop: () => shutdown('restart requested'),
  });
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    gateway.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error('stop failed', { error: describeError(err) });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('unhandledRejection', (reason) => logger.error('unhandled rejection', { error: describeError(reason) }));
  process.on('uncaughtException', (err) => {
    // State may be inconsistent after an uncaught throw: log it and let systemd restart us.
    logger.error('uncaught exception', { error: describeError(err), stack: err.stack?.split('\n')[1]?.trim() });
    process.exit(70);
  });
  await gateway.start();
}

async function token(command: Extract<CliCommand, { command: 'token' }>): Promise<void> {
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

async function main(argv: string[]): Promise<void> {
  let command: CliCommand;
  try {
    command = parseCli(argv);
  } catch (err) {
    process.stderr.write(`vigil: ${describeError(err)}\n${USAGE}\n`);
    process.exit(2);
  }
  try {
    switch (command.command) {
      case 'serve':
        return await serve(command);
      case 'token':
        return await token(command);
      case 'first-boot': {
        const { runFirstBootCli } = await import('./first-boot/first-boot-cli.js');
        process.exitCode = await runFirstBootCli(command);
        return;
      }
      case 'sim': {
        if (command.argv.some((a) => a === '--serial' || a.startsWith('--serial='))) {
          const { runSerialSimCli } = await import('./sim/serial-sim-cli.js');
          await runSerialSimCli(
            command.argv,
            standaloneSerialLines(createLogger('sim', stderrSink, parseLogLevel(process.env.VIGIL_LOG_LEVEL, 'warn'))),
          );
          return;
        }
        const { runSimulatorCli } = await import('./sim/sim-cli.js');
        await runSimulatorCli(command.argv);
        return;
      }
      case 'sim-modem': {
        const { runSimModemCli } = await import('./sim/modem/sim-modem-cli.js');
        await runSimModemCli(command.argv);
        return;
      }
      case 'ports': {
        const { runPorts } = await import('./cli-ports.js');
        await runPorts(command);
        return;
      }
      case 'status': {
        const { runStatus } = await import('./cli-status.js');
        process.exitCode = await runStatus(command);
        return;
      }
      case 'backup': {
        const { runBackup } = await import('./backup/backup-cli.js');
        process.stdout.write((await runBackup(command)) + '\n');
        return;
      }
      case 'restore': {
        const { runRestore } = await import('./backup/backup-cli.js');
        process.stdout.write((await runRestore(command)) + '\n');
        return;
      }
      case 'update-install': {
        const { runUpdateInstall } = await import('./update/update-cli.js');
        process.exitCode = await runUpdateInstall(command, process.env, process.stdout, process.stderr);
        return;
      }
      case 'update-status': {
        const { runUpdateStatus } = await import('./update/update-cli.js');
        process.exitCode = await runUpdateStatus(command, process.env, process.stdout);
        return;
      }
      case 'record-stop': {
        const { currentBootId, recordStop } = await import('./system/run-recorder.js');
        const { DEFAULT_CMDLINE_PATH, readBootedSlot } = await import('./update/boot-state.js');
        const slot = readBootedSlot(process.env.VIGIL_CMDLINE ?? DEFAULT_CMDLINE_PATH);
        process.stdout.write(
          recordStop(command.dataDir, process.env, Date.now(), { bootId: currentBootId(), slot }) + '\n',
        );
        return;
      }
      case 'version':
        process.stdout.write(readVersion() + '\n');
        return;
      case 'help':
        process.stdout.write(USAGE + '\n');
        return;
    }
  } catch (err) {
    process.stderr.write(`vigil: ${describeError(err)}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  }
}

void main(process.argv.slice(2));
