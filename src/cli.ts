#!/usr/bin/env node
/**
 * The `vigil` command: parses the command line and loads only the module of the command asked for
 * (serve: cli-serve.ts, token: cli-token.ts, ...), so `vigil version` or `vigil token` answer without
 * loading the gateway.
 */
import { parseCli, USAGE, type CliCommand } from './cli-args.js';
import { UsageError } from './core/usage-error.js';
import { describeError } from './core/errors.js';
import { readVersion } from './version.js';

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
      case 'serve': {
        const { serve } = await import('./cli-serve.js');
        return await serve(command);
      }
      case 'token': {
        const { token } = await import('./cli-token.js');
        return await token(command);
      }
      case 'first-boot': {
        const { runFirstBootCli } = await import('./first-boot/first-boot-cli.js');
        process.exitCode = await runFirstBootCli(command);
        return;
      }
      case 'sim': {
        if (command.argv.some((a) => a === '--serial' || a.startsWith('--serial='))) {
          const { runSerialSimCli } = await import('./sim/serial-sim-cli.js');
          const { standaloneSerialLines } = await import('./gateway/hardware.js');
          const { createLogger, parseLogLevel, stderrSink } = await import('./core/logger.js');
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
