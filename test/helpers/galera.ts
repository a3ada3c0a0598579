/**
 * A throwaway 3-node MariaDB Galera cluster for tests (platform-notes §MariaDB Galera): each node
 * has its own data dir in a temp dir and its own free loopback ports (SQL, group communication,
 * IST, rsync SST); no systemd, no fixed ports. Nodes run as user `mysql` (rsync SST drops to
 * `nobody` and a root joiner never receives its state). Node 0 bootstraps the cluster
 * (`--wsrep-new-cluster`); the others join by SST. A killed node rejoins by IST: its view state
 * is removed, its position recovered (`--wsrep-recover`) and passed as `--wsrep-start-position`.
 * Creates database `vigil` and user `vigil`/`vigilpass`@127.0.0.1 (replicated to every node).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { exited, rootSql, run } from './mariadb.js';
import { freePort, sleep } from './net.js';
import { tempDir } from './temp-dir.js';
import { tool } from './system-tools.js';

export interface GaleraNode {
  readonly index: number;
  readonly port: number;
  /** Runs SQL as root through the node's socket; stdout, tab-separated, no headers. */
  exec(sql: string): Promise<string>;
  /** SIGKILL, as a crash or a pulled cable. */
  kill(): Promise<void>;
  /** Starts a killed node again; it rejoins by IST and is Synced when this resolves. */
  restart(): Promise<void>;
  readonly running: boolean;
}

export interface GaleraCluster {
  readonly nodes: readonly GaleraNode[];
  /** Stops every node and removes the data dirs. */
  stop(): Promise<void>;
}

const PROVIDER = tool('/usr/lib/galera/libgalera_smm.so');
const READY_TIMEOUT_MS = 90_000;

interface NodePorts {
  sql: number;
  gcomm: number;
  ist: number;
  sst: number;
}

async function ports(): Promise<NodePorts> {
  return { sql: await freePort(), gcomm: await freePort(), ist: await freePort(), sst: await freePort() };
}

export async function startGaleraCluster(size = 3): Promise<GaleraCluster> {
  const dir = tempDir('vigil-galera-');
  chmodSync(dir.path, 0o755);
  const all: NodePorts[] = [];
  for (let i = 0; i < size; i++) all.push(await ports());
  const address = `gcomm://${all.map((p) => `127.0.0.1:${p.gcomm}`).join(',')}`;
  const mysql = {
    uid: Number((await run('id', ['-u', 'mysql'])).stdout),
    gid: Number((await run('id', ['-g', 'mysql'])).stdout),
  };
  const nodes: Array<GaleraNode & { start(extra: string[]): Promise<void>; stop(): Promise<void> }> = [];

  for (let i = 0; i < size; i++) {
    const p = all[i]!;
    const home = join(dir.path, `node${i}`);
    const data = join(home, 'data');
    const socket = join(home, 'mysql.sock');
    const log = join(home, 'err.log');
    mkdirSync(home);
    chownSync(home, mysql.uid, mysql.gid);
    let child: ChildProcess | null = null;
    const options = (): string[] => [
      '--no-defaults',
      `--datadir=${data}`,
      `--socket=${socket}`,
      `--port=${p.sql}`,
      '--bind-address=127.0.0.1',
      '--user=mysql',
      `--pid-file=${join(home, 'mysqld.pid')}`,
      `--log-error=${log}`,
      '--innodb-buffer-pool-size=64M',
      '--skip-name-resolve',
      '--wsrep-on=ON',
      `--wsrep-provider=${PROVIDER}`,
      '--wsrep-cluster-name=vigil-test',
      `--wsrep-cluster-address=${address}`,
      `--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:${p.gcomm};ist.recv_addr=127.0.0.1:${p.ist};gcache.size=32M`,
      '--wsrep-sst-method=rsync',
      `--wsrep-sst-receive-address=127.0.0.1:${p.sst}`,
      '--wsrep-node-address=127.0.0.1',
      `--wsrep-node-name=node${i}`,
      '--binlog-format=ROW',
      '--innodb-autoinc-lock-mode=2',
    ];
    const exec = async (sql: string): Promise<string> => {
      const r = await rootSql(socket, sql);
      if (r.code !== 0) throw new Error(`node${i}: ${r.stderr.trim()}`);
      return r.stdout;
    };
    const synced = async (started: ChildProcess): Promise<void> => {
      const deadline = Date.now() + READY_TIMEOUT_MS;
      for (;;) {
        const r = await rootSql(socket, "SHOW STATUS LIKE 'wsrep_local_state_comment'", 5000);
        if (r.code === 0 && /\tSynced/.test(r.stdout)) return;
        if (started.exitCode !== null) throw new Error(`node${i} exited during start: ${tail(log)}`);
        if (Date.now() > deadline) throw new Error(`node${i} not Synced within ${READY_TIMEOUT_MS} ms: ${tail(log)}`);
        await sleep(200);
      }
    };
    const node = {
      index: i,
      port: p.sql,
      get running() {
        return child !== null;
      },
      exec,
      async start(extra: string[]) {
        const started = spawn(tool('mariadbd'), [...options(), ...extra], { stdio: 'ignore' });
        child = started;
        await synced(started);
      },
      async kill() {
        const c = child;
        child = null;
        if (!c) return;
        c.kill('SIGKILL');
        await exited(c, 10_000);
      },
      async restart() {
        // IST instead of a full SST: forget the old view, recover the last committed position.
        rmSync(join(data, 'gvwstate.dat'), { force: true });
        const recover = await run(
          'mariadbd',
          [...options(), '--wsrep-recover', `--log-error=${join(home, 'recover.log')}`],
          60_000,
        );
        const position = /Recovered position:\s*([0-9a-f-]+:-?\d+)/.exec(readLog(join(home, 'recover.log')));
        if (recover.code !== 0 || !position)
          throw new Error(`node${i}: --wsrep-recover failed: ${tail(join(home, 'recover.log'))}`);
        await node.start([`--wsrep-start-position=${position[1]}`]);
      },
      async stop() {
        const c = child;
        child = null;
        if (!c) return;
        c.kill('SIGTERM');
        if (!(await exited(c, 20_000))) {
          c.kill('SIGKILL');
          await exited(c, 5000);
        }
      },
    };
    nodes.push(node);
    const install = await run(
      'mariadb-install-db',
      [
        '--no-defaults',
        `--datadir=${data}`,
        '--user=mysql',
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
      ],
      120_000,
    );
    if (install.code !== 0) {
      dir.remove();
      throw new Error(`mariadb-install-db failed: ${install.stderr.trim()}`);
    }
  }

  const stop = async (): Promise<void> => {
    // The last node standing goes last, so that no node waits for a vanished quorum.
    for (const node of [...nodes].reverse()) await node.stop();
    dir.remove();
  };
  try {
    await nodes[0]!.start(['--wsrep-new-cluster']);
    await nodes[0]!.exec(
      "CREATE DATABASE vigil; CREATE USER 'vigil'@'127.0.0.1' IDENTIFIED BY 'vigilpass'; " +
        "GRANT ALL ON *.* TO 'vigil'@'127.0.0.1'; FLUSH PRIVILEGES;",
    );
    for (const node of nodes.slice(1)) await node.start([]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { nodes, stop };
}

function readLog(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function tail(path: string): string {
  return readLog(path).split('\n').slice(-8).join(' | ');
}
