/**
 * `vigil serve`: runs the gateway until SIGTERM/SIGINT (loaded only for this command, so the other
 * commands start without the gateway's modules).
 */
import { describeError } from './core/errors.js';
import { createLogger, parseLogLevel, stderrSink } from './core/logger.js';
import type { CliCommand } from './cli-args.js';
import { Gateway } from './main.js';

export async function serve(command: Extract<CliCommand, { command: 'serve' }>): Promise<void> {
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
