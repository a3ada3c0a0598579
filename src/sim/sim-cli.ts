/**
 * `vigil sim`: parses the flags, runs one Simulator, prints a progress line per second (stderr)
 * and the JSON summary (stdout). Ctrl-C ends the run early and still prints the summary.
 * Exit code: 0 when every event sent was ACKed, 1 otherwise, 2 for a usage error.
 */
import { UsageError } from '../core/usage-error.js';
import { isVigilError } from '../core/errors.js';
import { createLogger, parseLogLevel, stderrSink } from '../core/logger.js';
import { parseSimArgs, SIM_HELP, SimUsageError } from './sim-args.js';
import { resolveSimOptions, type SimOptions } from './sim-options.js';
import type { SimSummary } from './sim-stats.js';
import { Simulator } from './simulator.js';
import { loadKeyring, saveKeyring } from './sim-keyring.js';

export interface SimCliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Where Ctrl-C comes from; tests pass their own emitter or nothing. */
  readonly signals?: NodeJS.EventEmitter | null;
}

const processIo: SimCliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  signals: process,
};

/** True when the run went as a healthy gateway makes it go: every event sent was ACKed. */
export function runSucceeded(summary: SimSummary): boolean {
  return summary.events_acked === summary.events_sent && summary.events_failed === 0 && summary.unanswered === 0;
}

function resolve(argv: readonly string[]): { options: SimOptions; quiet: boolean } | null {
  try {
    const command = parseSimArgs(argv);
    if (command.kind === 'help') return null;
    return { options: resolveSimOptions(command.input), quiet: command.quiet };
  } catch (err) {
    if (err instanceof SimUsageError || isVigilError(err, 'INVALID_SETTINGS'))
      throw new UsageError(`sim: ${err.message}\n(see vigil sim --help)`);
    throw err;
  }
}

/** Returns the summary (null after --help); sets process.exitCode 1 when an event went unACKed. */
export async function runSimulatorCli(argv: readonly string[], io: SimCliIo = processIo): Promise<SimSummary | null> {
  const parsed = resolve(argv);
  if (!parsed) {
    io.out(SIM_HELP + '\n');
    return null;
  }
  const { options, quiet } = parsed;
  const logger = createLogger('sim', stderrSink, parseLogLevel(process.env.VIGIL_LOG_LEVEL, 'warn'));
  let keyring;
  try {
    keyring = options.deviceKeysFile ? await loadKeyring(options.deviceKeysFile) : new Map<string, Buffer>();
  } catch (err) {
    throw new UsageError(`sim: --device-keys: ${err instanceof Error ? err.message : String(err)}`);
  }
  const simulator = new Simulator(options, {
    logger,
    keyring,
    ...(quiet ? {} : { onProgress: (line: string) => io.err(line + '\n') }),
  });
  const interrupt = (): void => void simulator.stop();
  io.signals?.once('SIGINT', interrupt);
  try {
    io.err(
      `sim: ${options.devices} ${options.transport.toUpperCase()} device(s) -> ${options.host}:${options.port}, ` +
        `${options.token}${options.key ? ' AES' : ''}, ` +
        `${options.saturate ? 'saturating' : `${options.ratePerDevice} event/s per device`}, up to ${options.durationMs / 1000} s\n`,
    );
    const summary = await simulator.run();
    if (options.deviceKeysFile) await saveKeyring(options.deviceKeysFile, keyring);
    io.out(JSON.stringify(summary) + '\n');
    if (!runSucceeded(summary)) process.exitCode = 1;
    return summary;
  } finally {
    io.signals?.removeListener('SIGINT', interrupt);
  }
}
