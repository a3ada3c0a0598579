/**
 * Talking to the booted image from the host, only through loopback port forwards: SSH (with the key that
 * first boot installed), the API over HTTPS, and one DC-09 TCP session. The API is reached over HTTPS
 * (the box's self-signed certificate, not verified here): a qemu port forward arrives from the slirp
 * gateway, not from the box's loopback, so plain HTTP would be refused (docs/security.md "Transport").
 */
import { execFile, spawn } from 'node:child_process';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { request } from 'node:https';
import { connect } from 'node:net';

export class Guest {
  private readonly sshPort: number;
  private readonly apiPort: number;
  private readonly keyFile: string;

  constructor(options: { sshPort: number; apiPort: number; keyFile: string }) {
    this.sshPort = options.sshPort;
    this.apiPort = options.apiPort;
    this.keyFile = options.keyFile;
  }

  /** Runs a shell command on the box as root; rejects with its stderr on a non-zero exit. */
  private sshOptions(): string[] {
    return [
      '-i',
      this.keyFile,
      '-p',
      String(this.sshPort),
      '-o',
      'StrictHostKeyChecking=no',
      '-o',
      'UserKnownHostsFile=/dev/null',
      '-o',
      'LogLevel=ERROR',
      '-o',
      'BatchMode=yes',
      '-o',
      'ConnectTimeout=10',
      '-o',
      'ServerAliveInterval=5',
      '-o',
      'ServerAliveCountMax=3',
      'root@127.0.0.1',
    ];
  }

  ssh(command: string, timeoutMs = 60_000): Promise<string> {
    const args = [...this.sshOptions(), command];
    return new Promise((resolve, reject) => {
      execFile('ssh', args, { timeout: timeoutMs, encoding: 'utf8' }, (err, stdout, stderr) => {
        if (err) reject(new Error(`ssh '${command}': ${stderr.trim() || err.message}`));
        else resolve(stdout.trim());
      });
    });
  }

  /** Runs `command` on the box as root with `localFile` on its standard input (a bundle, a backup). */
  sshWithInput(command: string, localFile: string, timeoutMs = 15 * 60_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn('ssh', [...this.sshOptions(), command], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
      child.stdin.on('error', () => undefined); // the far end may close first; its exit status says why
      createReadStream(localFile).pipe(child.stdin);
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve(stdout.trim());
        else reject(new Error(`ssh '${command}' < ${localFile}: ${stderr.trim() || `exit ${code ?? signal}`}`));
      });
    });
  }

  /** POSTs a file as a raw streamed body (application/octet-stream). */
  upload(path: string, localFile: string, token: string): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.apiPort,
          path,
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/octet-stream',
            'content-length': String(statSync(localFile).size),
          },
          rejectUnauthorized: false,
          agent: false,
          timeout: 15 * 60_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`POST ${path}: no answer in 15 min`)));
      req.on('error', reject);
      createReadStream(localFile).pipe(req);
    });
  }

  /** GETs `path` into `localFile` (a backup); the body is kept as text instead when the answer is not 200. */
  download(
    path: string,
    localFile: string,
    token: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.apiPort,
          path,
          method: 'GET',
          headers: { ...headers, authorization: `Bearer ${token}` },
          rejectUnauthorized: false,
          agent: false,
          timeout: 10 * 60_000,
        },
        (res) => {
          if (res.statusCode !== 200) {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
            return;
          }
          const out = createWriteStream(localFile, { mode: 0o600 });
          res.pipe(out);
          out.on('finish', () => resolve({ status: 200, text: '' }));
          out.on('error', reject);
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`GET ${path}: no answer in 10 min`)));
      req.on('error', reject);
      req.end();
    });
  }

  async http(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; timeoutMs?: number } = {},
  ): Promise<{ status: number; text: string }> {
    const timeoutMs = options.timeoutMs ?? 20_000;
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.apiPort,
          path,
          method,
          headers,
          rejectUnauthorized: false,
          agent: false,
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs / 1000} s`)));
      req.on('error', reject);
      req.end(options.body !== undefined ? JSON.stringify(options.body) : undefined);
    });
  }

  async healthy(): Promise<boolean> {
    try {
      return (await this.http('GET', '/health')).status === 200;
    } catch {
      return false;
    }
  }
}

/** Sends one frame on a fresh TCP connection and returns the first reply frame (up to its CR). */
export function sendFrame(port: number, frame: Buffer, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no reply within ${timeoutMs} ms (got '${reply}')`));
    }, timeoutMs);
    socket.on('connect', () => socket.write(frame));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('latin1');
      // SIA DC-09 §5.5.1: a frame ends with CR.
      if (reply.includes('\r')) {
        clearTimeout(timer);
        socket.end();
        resolve(reply.slice(0, reply.indexOf('\r') + 1));
      }
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

export async function poll<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | null | false>,
  intervalMs = 2000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  for (;;) {
    try {
      const value = await probe();
      if (value !== null && value !== false) return value;
    } catch (err) {
      // A dead VM will not come back by waiting: stop at once with its own words.
      if ((err as Error).name === 'VmDied') throw err;
      lastError = (err as Error).message;
    }
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not within ${Math.round(timeoutMs / 1000)} s${lastError ? ` (last error: ${lastError})` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
