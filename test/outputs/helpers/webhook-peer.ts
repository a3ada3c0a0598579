/**
 * A webhook receiver on 127.0.0.1 (real HTTP or HTTPS server) that checks every POST the way docs/outputs.md
 * tells receivers to (verifyWebhook), records it, and answers with the status `answer()` picks (200 by default;
 * 'hang' never answers). Bodies whose signature does not verify are answered 401 and recorded as such.
 */
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { WebhookBody } from '../../../src/outputs/webhook-body.js';
import { verifyWebhook } from '../../../src/outputs/webhook-signature.js';

export interface ReceivedPost {
  readonly body: WebhookBody;
  readonly raw: Buffer;
  readonly headers: IncomingMessage['headers'];
  readonly verdict: 'ok' | 'bad-signature' | 'stale';
  readonly status: number | 'hang';
  readonly at: number;
}

export interface WebhookPeerOptions {
  readonly secret: string;
  readonly tls?: { cert: string; key: string };
  readonly answer?: (post: { index: number; ids: number[] }) => number | 'hang';
  /** The receiver's clock (ms epoch) for the timestamp check: the gateway's clock in the tests. */
  readonly now?: () => number;
}

export class WebhookPeer {
  readonly posts: ReceivedPost[] = [];
  answer: (post: { index: number; ids: number[] }) => number | 'hang';
  private readonly server: Server;
  private readonly secret: string;
  private readonly now: () => number;
  private readonly hanging = new Set<ServerResponse>();

  constructor(options: WebhookPeerOptions) {
    this.secret = options.secret;
    this.now = options.now ?? Date.now;
    this.answer = options.answer ?? (() => 200);
    const handler = (req: IncomingMessage, res: ServerResponse): void => this.handle(req, res);
    this.server = options.tls
      ? createHttps({ cert: options.tls.cert, key: options.tls.key }, handler)
      : createHttp(handler);
  }

  async listen(port = 0): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    return this.port;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Event ids of the accepted (2xx, signature ok) POSTs, in the order they were answered. */
  get deliveredIds(): number[] {
    return this.posts
      .filter((p) => p.status === 200 && p.verdict === 'ok')
      .flatMap((p) => p.body.events.map((e) => e.id));
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const verdict = verifyWebhook(
        this.secret,
        { signature: header(req, 'x-vigil-signature'), timestamp: header(req, 'x-vigil-timestamp') },
        raw,
        Math.floor(this.now() / 1000),
      );
      const body = JSON.parse(raw.toString('utf8')) as WebhookBody;
      const index = this.posts.length;
      const status = verdict === 'ok' ? this.answer({ index, ids: body.events.map((e) => e.id) }) : 401;
      this.posts.push({ body, raw, headers: req.headers, verdict, status, at: performance.now() });
      if (status === 'hang') {
        this.hanging.add(res);
        return;
      }
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'no');
    });
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
