/**
 * The `rauc` command line (RAUC 1.8+; on the box it talks to rauc-service over D-Bus): bundle facts,
 * install, slot status and mark-good. The binary and any extra arguments are injectable (the constructor,
 * or `VIGIL_RAUC` / `VIGIL_RAUC_ARGS`), so tests run a real `rauc info` with their own keyring and hosts
 * without RAUC answer "not available". Errors carry codes; rauc's own words stay in the message.
 */
import { execFile, spawn } from 'node:child_process';
import { VigilError } from '../core/errors.js';
import { isSlotStatusShape, parseRaucStatus, type RaucStatus } from './rauc-status.js';

export interface RaucOptions {
  /** The rauc executable (default `rauc` on PATH). */
  readonly bin?: string;
  /** Inserted after the sub-command, e.g. `--keyring=/tmp/ca.pem` in tests. */
  readonly extraArgs?: readonly string[];
}

/** What `rauc info` says of a bundle whose signature it verified. */
export interface BundleInfo {
  readonly compatible: string;
  readonly version: string;
  /** Root hash, salt and hash-tree size of a `verity` bundle's payload; null for other formats. */
  readonly verity: { readonly hash: string; readonly salt: string; readonly size: number } | null;
  /** A verity bundle whose hash facts this rauc does not print readably: the payload cannot be checked first. */
  readonly verityUnreadable: boolean;
}

export type RaucFailure = 'not-installed' | 'failed' | 'timeout';

/** The environment's choice of binary and arguments (docs/updates.md "On a host without RAUC"). */
export function raucOptionsFromEnv(env: NodeJS.ProcessEnv): RaucOptions {
  const args = (env.VIGIL_RAUC_ARGS ?? '').split(/\s+/).filter((a) => a !== '');
  return { ...(env.VIGIL_RAUC ? { bin: env.VIGIL_RAUC } : {}), extraArgs: args };
}

export class RaucError extends VigilError {
  readonly failure: RaucFailure;
  /** rauc's standard error, trimmed: what the refusal is classified from. */
  readonly stderr: string;

  constructor(failure: RaucFailure, message: string, stderr: string) {
    super('SERVICE_FAILED', message);
    this.failure = failure;
    this.stderr = stderr;
  }
}

const INFO_TIMEOUT_MS = 60_000;
/** Writing a slot of a few hundred MiB to an SD card takes minutes. */
const INSTALL_TIMEOUT_MS = 30 * 60_000;

/** Lines of rauc's readable `info` that carry the verity facts (absent from its `json` output before 1.10). */
function parseVerity(text: string): BundleInfo['verity'] {
  const field = (name: string): string | null => {
    const match = new RegExp(`^\\s*Verity ${name}:\\s*'?([^'\\s]+)'?\\s*$`, 'm').exec(text);
    return match ? match[1]! : null;
  };
  const hash = field('Hash');
  const salt = field('Salt');
  const size = field('Size');
  if (!hash || !salt || !size || !/^[0-9a-f]+$/i.test(hash) || !/^[0-9a-f]+$/i.test(salt) || !/^\d+$/.test(size))
    return null;
  return { hash: hash.toLowerCase(), salt: salt.toLowerCase(), size: Number(size) };
}

/**
 * rauc's words for a failure: its standard error, and the lines an install handler sent with RAUC's
 * `<< error …` protocol (the image's version floor says why it refused there; docs/image.md).
 */
function failureWords(stderr: string, stdout: string): string {
  const handler = stdout
    .split(/[\r\n]/)
    .map((line) => /vigil: .*/.exec(line)?.[0] ?? '')
    .filter((line) => line !== '');
  const own = stderr.split('\n').filter((line) => line.trim() !== '' && !/^rauc-Message:/.test(line));
  return [...new Set([...own, ...handler])].join('\n').trim();
}

export class RaucClient {
  private readonly bin: string;
  private readonly extraArgs: readonly string[];

  constructor(options: RaucOptions = {}) {
    this.bin = options.bin ?? 'rauc';
    this.extraArgs = options.extraArgs ?? [];
  }

  private run(sub: readonly string[], tail: readonly string[], timeoutMs: number): Promise<string> {
    const args = [...sub, ...this.extraArgs, ...tail];
    return new Promise((resolve, reject) => {
      execFile(
        this.bin,
        args,
        { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } },
        (err, stdout, stderr) => {
          if (!err) return resolve(stdout);
          const code = (err as NodeJS.ErrnoException).code;
          const words = failureWords(stderr, stdout);
          if (code === 'ENOENT' || code === 'EACCES')
            return reject(new RaucError('not-installed', `rauc is not installed (${this.bin})`, words));
          if (err.killed)
            return reject(new RaucError('timeout', `rauc ${sub.join(' ')} did not finish in ${timeoutMs} ms`, words));
          reject(new RaucError('failed', words || `rauc ${sub.join(' ')} failed`, words));
        },
      );
    });
  }

  /** Verifies the signature (the keyring of system.conf, or --keyring) and reads the manifest. */
  async info(file: string): Promise<BundleInfo> {
    const json = await this.run(['info'], ['--output-format=json', file], INFO_TIMEOUT_MS);
    let parsed: { compatible?: unknown; version?: unknown };
    try {
      parsed = JSON.parse(json) as typeof parsed;
    } catch {
      throw new RaucError('failed', 'rauc info gave no readable answer', json.slice(0, 200));
    }
    const readable = await this.run(['info'], [file], INFO_TIMEOUT_MS);
    return {
      compatible: typeof parsed.compatible === 'string' ? parsed.compatible : '',
      version: typeof parsed.version === 'string' ? parsed.version : '',
      verity: /Bundle Format:\s*verity/.test(readable) ? parseVerity(readable) : null,
      verityUnreadable: /Bundle Format:\s*verity/.test(readable) && parseVerity(readable) === null,
    };
  }

  async install(file: string): Promise<void> {
    await this.run(['install'], [file], INSTALL_TIMEOUT_MS);
  }

  /**
   * Installs a bundle streamed from its URL (RAUC's HTTP streaming: range requests, no copy on the data
   * partition; adaptive bundles fetch only the blocks the slots lack). `tlsCa` is a CA file RAUC's
   * streaming helper can read. `onProgress` gets RAUC's percent and step as they come.
   */
  installUrl(
    url: string,
    options: { readonly tlsCa?: string; readonly onProgress?: (percent: number, step: string) => void } = {},
  ): Promise<void> {
    const args = ['install', ...this.extraArgs, ...(options.tlsCa ? [`--tls-ca=${options.tlsCa}`] : []), url];
    return new Promise((resolve, reject) => {
      const child = spawn(this.bin, args, { env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      let stdout = '';
      let pending = '';
      const timer = setTimeout(() => child.kill('SIGTERM'), INSTALL_TIMEOUT_MS);
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        if (stdout.length < 16_384) stdout += chunk;
        pending += chunk;
        const lines = pending.split(/[\r\n]/);
        pending = lines.pop() ?? '';
        for (const line of lines) {
          const match = /(\d{1,3})%\s*(.*)$/.exec(line);
          if (match) options.onProgress?.(Number(match[1]), match[2]!.trim());
        }
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        if (stderr.length < 16_384) stderr += chunk;
      });
      child.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(
          err.code === 'ENOENT' || err.code === 'EACCES'
            ? new RaucError('not-installed', `rauc is not installed (${this.bin})`, '')
            : new RaucError('failed', err.message, ''),
        );
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) return resolve();
        const words = failureWords(stderr, stdout);
        if (signal)
          return reject(new RaucError('timeout', `rauc install did not finish in ${INSTALL_TIMEOUT_MS} ms`, words));
        reject(new RaucError('failed', words || `rauc install failed (exit ${code})`, words));
      });
    });
  }

  async status(): Promise<RaucStatus> {
    const text = await this.run(['status'], ['--detailed', '--output-format=json'], INFO_TIMEOUT_MS);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new RaucError('failed', 'rauc status gave no readable answer', text.slice(0, 200));
    }
    if (!isSlotStatusShape(parsed)) throw new RaucError('failed', 'rauc status has an unexpected shape', '');
    return parseRaucStatus(parsed);
  }

  /** Marks the booted slot good: the backend resets its tries and clears its trial flag. */
  async markGood(): Promise<void> {
    await this.run(['status'], ['mark-good'], INFO_TIMEOUT_MS);
  }
}
