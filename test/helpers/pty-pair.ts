/**
 * A real pseudo-terminal pair from socat (platform notes: serialport 13 opens them; bytes flow both
 * ways). `a` and `b` are stable link paths: stop() pulls the "cable" (socat exits, the links go
 * away) and start() plugs it in again under the same names, as a re-plugged USB adapter would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from './net.js';
import { tempDir } from './temp-dir.js';
import { tool } from './system-tools.js';

export class PtyPair {
  readonly a: string;
  readonly b: string;
  private readonly dir: { path: string; remove(): void };
  private child: ChildProcess | null = null;

  constructor(prefix = 'vigil-pty-') {
    this.dir = tempDir(prefix);
    this.a = join(this.dir.path, 'ttyA');
    this.b = join(this.dir.path, 'ttyB');
  }

  async start(): Promise<void> {
    if (this.child) return;
    const child = spawn(tool('socat'), [`pty,raw,echo=0,link=${this.a}`, `pty,raw,echo=0,link=${this.b}`], {
      stdio: 'ignore',
    });
    this.child = child;
    child.once('exit', () => {
      if (this.child === child) this.child = null;
    });
    await waitFor(() => existsSync(this.a) && existsSync(this.b), 5000, 10);
  }

  /** socat exits: both ends see the line gone. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
    await waitFor(() => !existsSync(this.a) && !existsSync(this.b), 5000, 10);
  }

  async close(): Promise<void> {
    await this.stop();
    this.dir.remove();
  }
}
