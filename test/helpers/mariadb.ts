/**
 * A throwaway MariaDB server for tests (platform-notes §MariaDB): a fresh data dir in a temp dir,
 * a free loopback port, run as root. Ready when `mariadb-admin ping` answers (bounded: 30 s).
 * Creates database `vigil` and user `vigil`/`vigilpass` (from 127.0.0.1 and localhost).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, sleep } from './net.js';
import { tempDir } from './temp-dir.js';
import { tool } from './system-tools.js';

export interface MariaDb {
  host: '127.0.0.1';
  port: number;
  socket: string;
  /** Runs SQL as root through the socket; resolves with stdout (tab-separated, no headers). */
  exec(sql: string): Promise<string>;
  /** SIGKILL: the server vanishes mid-whatever, as in a crash or a pulled cable (outage tests). */
  kill(): Promise<void>;
  /** Starts a killed server again on the same port and data dir. */
  start(): Promise<void>;
  /** Stops the server and removes its data dir. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;
/** A free port can be taken by another process's connection before the server binds it: a new port, a new try. */
const BIND_ATTEMPTS = 3;

/** The last lines of the server's error log, for a failure message that says why. */
function logTail(path: string): string {
  if (!existsSync(path)) return '(no error log)';
  return readFileSync(path, 'utf8').trim().split('\n').slice(-6).join(' | ');
}

/** Runs `program` (a name in test/system-tools.txt) to its end; kills it after `timeoutMs`. */
export function run(
  program: string,
  args: string[],
  timeoutMs = 30_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool(program), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** One SQL text as root over the server's socket, tab-separated rows without column names. */
export function rootSql(
  socket: string,
  sql: string,
  timeoutMs?: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return run(
    'mariadb',
    ['--no-defaults', `--socket=${socket}`, '-uroot', '--batch', '--skip-column-names', '-e', sql],
    timeoutMs,
  );
}

export function exited(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export interface MariaDbOptions {
  /** More server options, e.g. `--ssl-cert=…` and `--ssl-key=…` for the TLS tests. */
  readonly args?: readonly string[];
}

export async function startMariaDb(options: MariaDbOptions = {}): Promise<MariaDb> {
  const dir = tempDir('vigil-mariadb-');
  const data = join(dir.path, 'data');
  const socket = join(dir.path, 'mysql.sock');
  const errorLog = join(dir.path, 'err.log');
  let port = await freePort();
  let server: ChildProcess | null = null;

  const exec = async (sql: string): Promise<string> => {
    const r = await rootSql(socket, sql);
    if (r.code !== 0) throw new Error(`mariadb exec failed: ${r.stderr.trim()}`);
    return r.stdout;
  };

  const start = async (): Promise<void> => {
    const child = spawn(
      tool('mariadbd'),
      [
        '--no-defaults',
        `--datadir=${data}`,
        `--socket=${socket}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        '--user=root',
        `--pid-file=${join(dir.path, 'mysqld.pid')}`,
        `--log-error=${errorLog}`,
        '--innodb-buffer-pool-size=64M',
        '--skip-name-resolve',
        ...(options.args ?? []),
      ],
      { stdio: 'ignore' },
    );
    server = child;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const ping = await run('mariadb-admin', ['--no-defaults', `--socket=${socket}`, '-uroot', 'ping'], 5_000);
      if (ping.code === 0) return;
      if (child.exitCode !== null) throw new Error(`mariadbd exited during start: ${logTail(errorLog)}`);
      if (Date.now() > deadline) throw new Error(`mariadbd not ready within ${READY_TIMEOUT_MS} ms`);
      await sleep(100);
    }
  };

  const kill = async (): Promise<void> => {
    const child = server;
    server = null;
    if (!child) return;
    child.kill('SIGKILL');
    await exited(child, 10_000);
  };

  const stop = async (): Promise<void> => {
    const child = server;
    server = null;
    if (child) {
      child.kill('SIGTERM');
      if (!(await exited(child, 10_000))) {
        child.kill('SIGKILL');
        await exited(child, 5_000);
      }
    }
    dir.remove();
  };

  try {
    const install = await run(
      'mariadb-install-db',
      [
        '--no-defaults',
        `--datadir=${data}`,
        '--user=root',
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
      ],
      60_000,
    );
    if (install.code !== 0) throw new Error(`mariadb-install-db failed: ${install.stderr.trim()}`);
    for (let attempt = 1; ; attempt++) {
      try {
        await start();
        break;
      } catch (err) {
        const portTaken = /Address already in use|Bind on TCP\/IP port/.test(logTail(errorLog));
        if (!portTaken || attempt === BIND_ATTEMPTS) throw err;
        server = null;
        port = await freePort();
      }
    }
    await exec(
      'CREATE DATABASE vigil; ' +
        "CREATE USER 'vigil'@'127.0.0.1' IDENTIFIED BY 'vigilpass'; " +
        "CREATE USER 'vigil'@'localhost' IDENTIFIED BY 'vigilpass'; " +
        "GRANT ALL ON vigil.* TO 'vigil'@'127.0.0.1'; GRANT ALL ON vigil.* TO 'vigil'@'localhost'; FLUSH PRIVILEGES;",
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { host: '127.0.0.1', port, socket, exec, kill, start, stop };
}
