import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../../src/core/usage-error.js';
import { parseSimArgs, SIM_FLAGS, SIM_HELP } from '../../src/sim/sim-args.js';
import { runSimulatorCli } from '../../src/sim/sim-cli.js';
import { TcpPeer } from './dc09-peer.js';

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli.js');

function collect(): {
  out: string[];
  err: string[];
  io: { out: (t: string) => void; err: (t: string) => void; signals: null };
} {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t) => out.push(t), err: (t) => err.push(t), signals: null } };
}

test('--help documents every flag the parser accepts', async () => {
  const c = collect();
  assert.is(await runSimulatorCli(['--help'], c.io), null);
  const text = c.out.join('');
  assert.ok(SIM_FLAGS.length >= 30);
  for (const flag of SIM_FLAGS) assert.ok(text.includes(`--${flag.name}`), `--${flag.name} missing from the help`);
  assert.is(text, SIM_HELP + '\n');
});

test('flags map onto the options', () => {
  const parsed = parseSimArgs([
    '--port',
    '10001',
    '--transport',
    'udp',
    '--devices',
    '5',
    '--account-base',
    '00A0',
    '--total-rate',
    '50',
    '--key',
    'abc123',
    '--fault',
    'bad',
    '--reply-packets',
    '3',
    '--link-test',
    '1.5',
    '--duration',
    '2',
    '--quiet',
  ]);
  assert.ok(parsed.kind === 'run');
  if (parsed.kind !== 'run') return;
  assert.is(parsed.quiet, true);
  assert.equal(
    { ...parsed.input },
    {
      port: 10001,
      transport: 'udp',
      devices: 5,
      accountBase: '00A0',
      totalRate: 50,
      key: 'abc123',
      linkTestIntervalMs: 1500,
      durationMs: 2000,
      link: { fault: 'bad', replyPackets: 3 },
    },
  );
});

test('a missing port, an unknown flag or a bad value is a usage error', async () => {
  for (const argv of [[], ['--port', '1', '--bogus'], ['--port', 'x'], ['--port', '1', '--token', 'XYZ']]) {
    let error: unknown;
    try {
      await runSimulatorCli(argv, collect().io);
    } catch (err) {
      error = err;
    }
    assert.ok(error instanceof UsageError, `${argv.join(' ')}: ${String(error)}`);
  }
});

test('`vigil sim` as a process: progress on stderr, one JSON summary on stdout, exit 0 when all was ACKed', async () => {
  const peer = new TcpPeer({});
  await peer.start();
  try {
    const child = spawn(
      process.execPath,
      [CLI, 'sim', '--port', String(peer.port), '--devices', '2', '--rate', '5', '--duration', '1.2'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.on('close', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    assert.is(code, 0, stderr);
    const summary = JSON.parse(stdout) as { events_sent: number; events_acked: number; devices: number };
    assert.is(summary.devices, 2);
    // About 12 events in 1.2 s at 5/s per device; a busy machine connects and sends later, never none.
    assert.ok(summary.events_sent >= 1, `sent ${summary.events_sent}`);
    assert.is(summary.events_acked, summary.events_sent);
    // The first tick is due at 1 s (before the 1.2 s end); a busy machine runs it a little late.
    assert.match(stderr, /^t=\d+\.\ds conn=[0-2]\/2 sent=\d+ acked=\d+ rate=\d+\/s p50=/m);
    assert.is(peer.events.length, summary.events_sent);
  } finally {
    await peer.stop();
  }
});

test.run();
