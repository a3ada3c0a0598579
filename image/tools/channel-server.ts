/**
 * A static HTTPS server for an update channel, as any web server would host one (docs/updates.md
 * "Publishing"): files from one directory, with HTTP range requests (RAUC's streaming reads the bundle
 * in ranges). For the channel check and the tests it also misbehaves on demand — answers a path with
 * a status, dribbles it at a rate, stalls after some bytes, or the whole server goes away — and counts
 * the bytes it sent per path, which is what a box fetched.
 */
import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';

export type Misbehaviour =
  | { readonly kind: 'status'; readonly status: number }
  | { readonly kind: 'slow'; readonly bytesPerSecond: number }
  | { readonly kind: 'stall'; readonly afterBytes: number };

export interface ChannelServerOptions {
  readonly root: string;
  readonly key: string;
  readonly cert: string;
  /** Loopback unless told otherwise: the qemu guest reaches the host's loopback through its user network. */
  readonly host?: string;
  readonly port?: number;
}

export class ChannelServer {
  private readonly options: ChannelServerOptions;
  private server: Server | null = null;
  private readonly misbehaving = new Map<string, Misbehaviour>();
  /** Bytes of bodies sent, by path; requests, by path. */
  readonly sent = new Map<string, number>();
  readonly requests = new Map<string, number>();

  constructor(options: ChannelServerOptions) {
    this.options = options;
  }

  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? 0;
  }

  /** Misbehave on `path` (e.g. `/stable/channel.cms`) until `behave(path)`. */
  misbehave(path: string, how: Misbehaviour): void {
    this.misbehaving.set(path, how);
  }

  behave(path?: string): void {
    if (path === undefined) this.misbehaving.clear();
    else this.misbehaving.delete(path);
  }

  bytesSent(path: string): number {
    return this.sent.get(path) ?? 0;
  }

  resetCounts(): void {
    this.sent.clear();
    this.requests.clear();
  }

  async start(): Promise<void> {
    const server = createServer({ key: this.options.key, cert: this.options.cert }, (req, res) => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'https://channel').pathname);
      this.requests.set(path, (this.requests.get(path) ?? 0) + 1);
      const how = this.misbehaving.get(path);
      if (how?.kind === 'status') {
        res.writeHead(how.status, { 'content-type': 'text/plain' }).end(`${how.status}\n`);
        return;
      }
      const file = join(this.options.root, normalize(path).replace(/^(\.\.[/\\])+/, ''));
      let size: number;
      try {
        const info = statSync(file);
        if (!info.isFile()) throw new Error('not a file');
        size = info.size;
      } catch {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('404\n');
        return;
      }
      let start = 0;
      let end = size - 1;
      const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
      if (range && (range[1] !== '' || range[2] !== '')) {
        if (range[1] === '') start = Math.max(0, size - Number(range[2]));
        else {
          start = Number(range[1]);
          if (range[2] !== '') end = Math.min(size - 1, Number(range[2]));
        }
        if (start > end || start >= size) {
          res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
          return;
        }
        res.writeHead(206, {
          'content-range': `bytes ${start}-${end}/${size}`,
          'content-length': end - start + 1,
          'accept-ranges': 'bytes',
        });
      } else {
        res.writeHead(200, { 'content-length': size, 'accept-ranges': 'bytes' });
      }
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      this.send(path, file, start, end, how, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  private send(
    path: string,
    file: string,
    start: number,
    end: number,
    how: Misbehaviour | undefined,
    res: import('node:http').ServerResponse,
  ): void {
    const count = (n: number) => this.sent.set(path, (this.sent.get(path) ?? 0) + n);
    if (how?.kind === 'slow') {
      // A trickle: `bytesPerSecond` a second, in ten slices, for as long as the client waits.
      const stream = createReadStream(file, {
        start,
        end,
        highWaterMark: Math.max(1, Math.floor(how.bytesPerSecond / 10)),
      });
      stream.on('data', (chunk) => {
        stream.pause();
        res.write(chunk);
        count(chunk.length);
        setTimeout(() => stream.resume(), 100).unref();
      });
      stream.on('end', () => res.end());
      res.on('close', () => stream.destroy());
      return;
    }
    const stream = createReadStream(file, { start, end });
    let budget = how?.kind === 'stall' ? Math.max(0, how.afterBytes - this.bytesSent(path)) : Number.POSITIVE_INFINITY;
    stream.on('data', (data) => {
      const chunk = data as Buffer;
      const part = budget >= chunk.length ? chunk : chunk.subarray(0, budget);
      budget -= part.length;
      if (part.length > 0) {
        res.write(part);
        count(part.length);
      }
      // Stalled: the connection stays open and silent, as a hung server's does.
      if (budget <= 0) stream.destroy();
    });
    stream.on('end', () => res.end());
    res.on('close', () => stream.destroy());
  }

  /** Goes away: new connections are refused, open ones cut. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
