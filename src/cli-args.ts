/**
 * Argument parsing for the `vigil` command, kept apart from cli.ts so it can be tested without
 * starting anything. Every flag is checked here; a bad one is a usage error (exit 2).
 */
import { parseArgs } from 'node:util';
import { ALL_SCOPES } from './auth/scopes.js';
import { TOKEN_TIME_MAX } from './settings/schema.js';
import { UsageError } from './core/usage-error.js';

/** Every scope a token may carry: `vigil token` may mint any of them. */
export const KNOWN_SCOPES = ALL_SCOPES;

export type CliCommand =
  | { command: 'serve'; dataDir: string; httpPort?: number; httpsPort?: number; host?: string }
  | { command: 'token'; dataDir: string; scopes: string[]; minutes: number }
  | { command: 'sim'; argv: string[] }
  | { command: 'sim-modem'; argv: string[] }
  | { command: 'first-boot'; bootDir: string; root: string; dataDir: string }
  | { command: 'ports'; dataDir: string; json: boolean }
  | { command: 'status'; dataDir: string; watch: boolean; intervalS: number; url?: string }
  | { command: 'record-stop'; dataDir: string }
  | { command: 'backup'; dataDir: string; out: string; journal: boolean; passphraseFile?: string }
  | { command: 'restore'; dataDir: string; file: string; newIdentity: boolean; passphraseFile?: string }
  | { command: 'update-install'; dataDir: string; file: string; allowDowngrade: boolean }
  | { command: 'update-status'; dataDir: string; json: boolean }
  | { command: 'version' }
  | { command: 'help' };

export const USAGE = `usage:
  vigil serve [--data-dir DIR] [--http-port N] [--https-port N] [--host ADDR]
  vigil token [--data-dir DIR] --scopes a,b,c [--minutes N]
  vigil sim --help
  vigil sim --serial PATH [--protocol SIA-DC09|MLR2] (vigil sim --serial x --help)
  vigil sim-modem --pty PATH [...]   (simulated GSM modem; vigil sim-modem --help)
  vigil first-boot [--boot-dir DIR] [--root DIR] [--data-dir DIR]
  vigil ports [--data-dir DIR] [--json]
  vigil status [--data-dir DIR] [--watch] [--interval S] [--url URL]
  vigil backup --out FILE [--journal] [--passphrase-file F] [--data-dir DIR]
  vigil restore FILE [--new-identity] [--passphrase-file F] [--data-dir DIR]
  vigil update install FILE [--allow-downgrade] [--data-dir DIR]   (a signed system bundle; docs/updates.md)
  vigil update status [--json] [--data-dir DIR]
  vigil record-stop [--data-dir DIR]   (systemd's ExecStopPost: why the run ended; docs/watchdog.md)
  vigil version

  --data-dir defaults to $VIGIL_DATA_DIR or ./data
  --http-port / --https-port override api.api_http_port / api.api_port for this run (0 = listener off)
  first-boot applies vigil-setup.txt once (docs/first-boot.md); defaults: /boot/firmware, /, --data-dir
  token scopes: ${KNOWN_SCOPES.join(', ')}; --minutes 1..${TOKEN_TIME_MAX}, default 60
  status asks the running gateway (http://127.0.0.1:api_http_port unless --url); --watch redraws every S s (default 2)`;

function port(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new UsageError(`${flag}: must be an integer 0..65535`);
  return Number(value);
}

export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliCommand {
  const [command, ...rest] = argv;
  const defaultDataDir = env.VIGIL_DATA_DIR ?? './data';
  switch (command) {
    case 'serve': {
      const { values } = parseArgs({
        args: rest,
        options: {
          'data-dir': { type: 'string' },
          'http-port': { type: 'string' },
          'https-port': { type: 'string' },
          host: { type: 'string' },
        },
        strict: true,
      });
      const result: CliCommand = { command: 'serve', dataDir: values['data-dir'] ?? defaultDataDir };
      const httpPort = port(values['http-port'], '--http-port');
      const httpsPort = port(values['https-port'], '--https-port');
      if (httpPort !== undefined) result.httpPort = httpPort;
      if (httpsPort !== undefined) result.httpsPort = httpsPort;
      if (values.host !== undefined) result.host = values.host;
      return result;
    }
    case 'token': {
      const { values } = parseArgs({
        args: rest,
        options: { 'data-dir': { type: 'string' }, scopes: { type: 'string' }, minutes: { type: 'string' } },
        strict: true,
      });
      if (!values.scopes) throw new UsageError('--scopes is required');
      const scopes = values.scopes
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = scopes.filter((s) => !(KNOWN_SCOPES as readonly string[]).includes(s));
      if (scopes.length === 0 || unknown.length > 0)
        throw new UsageError(`--scopes: unknown scope ${unknown.join(', ') || '(none given)'}`);
      const minutesText = values.minutes ?? '60';
      const minutes = Number(minutesText);
      if (!/^\d+$/.test(minutesText) || minutes < 1 || minutes > TOKEN_TIME_MAX)
        throw new UsageError(`--minutes: must be an integer 1..${TOKEN_TIME_MAX}`);
      return { command: 'token', dataDir: values['data-dir'] ?? defaultDataDir, scopes: [...new Set(scopes)], minutes };
    }
    case 'first-boot': {
      const { values } = parseArgs({
        args: rest,
        options: { 'boot-dir': { type: 'string' }, root: { type: 'string' }, 'data-dir': { type: 'string' } },
        strict: true,
      });
      return {
        command: 'first-boot',
        bootDir: values['boot-dir'] ?? '/boot/firmware',
        root: values.root ?? '/',
        dataDir: values['data-dir'] ?? defaultDataDir,
      };
    }
    case 'sim':
      return { command: 'sim', argv: rest };
    case 'sim-modem':
      return { command: 'sim-modem', argv: rest };
    case 'ports': {
      const { values } = parseArgs({
        args: rest,
        options: { 'data-dir': { type: 'string' }, json: { type: 'boolean' } },
        strict: true,
      });
      return { command: 'ports', dataDir: values['data-dir'] ?? defaultDataDir, json: values.json === true };
    }
    case 'status': {
      const { values } = parseArgs({
        args: rest,
        options: {
          'data-dir': { type: 'string' },
          watch: { type: 'boolean' },
          interval: { type: 'string' },
          url: { type: 'string' },
        },
        strict: true,
      });
      const intervalText = values.interval ?? '2';
      if (!/^\d+$/.test(intervalText) || Number(intervalText) < 1 || Number(intervalText) > 3600)
        throw new UsageError('--interval: must be an integer 1..3600 (seconds)');
      if (values.url !== undefined && !/^https?:\/\/[^\s/]+\/?$/.test(values.url))
        throw new UsageError('--url: must be http(s)://host:port');
      return {
        command: 'status',
        dataDir: values['data-dir'] ?? defaultDataDir,
        watch: values.watch === true,
        intervalS: Number(intervalText),
        ...(values.url !== undefined ? { url: values.url } : {}),
      };
    }
    case 'backup': {
      const { values } = parseArgs({
        args: rest,
        options: {
          'data-dir': { type: 'string' },
          out: { type: 'string' },
          journal: { type: 'boolean' },
          'passphrase-file': { type: 'string' },
        },
        strict: true,
      });
      if (!values.out) throw new UsageError('--out is required: the backup file to write');
      return {
        command: 'backup',
        dataDir: values['data-dir'] ?? defaultDataDir,
        out: values.out,
        journal: values.journal === true,
        ...(values['passphrase-file'] !== undefined ? { passphraseFile: values['passphrase-file'] } : {}),
      };
    }
    case 'restore': {
      const { values, positionals } = parseArgs({
        args: rest,
        options: {
          'data-dir': { type: 'string' },
          'new-identity': { type: 'boolean' },
          'passphrase-file': { type: 'string' },
        },
        allowPositionals: true,
        strict: true,
      });
      if (positionals.length !== 1) throw new UsageError('restore takes one backup file');
      return {
        command: 'restore',
        dataDir: values['data-dir'] ?? defaultDataDir,
        file: positionals[0]!,
        newIdentity: values['new-identity'] === true,
        ...(values['passphrase-file'] !== undefined ? { passphraseFile: values['passphrase-file'] } : {}),
      };
    }
    case 'update': {
      const [sub, ...args] = rest;
      const { values, positionals } = parseArgs({
        args,
        options: {
          'data-dir': { type: 'string' },
          'allow-downgrade': { type: 'boolean' },
          json: { type: 'boolean' },
        },
        allowPositionals: true,
        strict: true,
      });
      const dataDir = values['data-dir'] ?? defaultDataDir;
      if (sub === 'install') {
        if (positionals.length !== 1) throw new UsageError('update install takes one bundle file');
        return {
          command: 'update-install',
          dataDir,
          file: positionals[0]!,
          allowDowngrade: values['allow-downgrade'] === true,
        };
      }
      if (sub === 'status') {
        if (positionals.length !== 0) throw new UsageError('update status takes no file');
        return { command: 'update-status', dataDir, json: values.json === true };
      }
      throw new UsageError("update: use 'vigil update install FILE' or 'vigil update status'");
    }
    case 'record-stop': {
      const { values } = parseArgs({ args: rest, options: { 'data-dir': { type: 'string' } }, strict: true });
      return { command: 'record-stop', dataDir: values['data-dir'] ?? defaultDataDir };
    }
    case 'version':
    case '--version':
      return { command: 'version' };
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      return { command: 'help' };
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}
