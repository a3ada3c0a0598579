/**
 * One HTTP(S) POST of a webhook output, with node:http / node:https (no dependency). Keep-alive: a backlog
 * drains over one connection instead of one TLS handshake per POST. TLS certificates are always verified; a
 * `ca` replaces the system trust store for this output (a private CA). Redirects are not followed (a 3xx is an
 * answer like any other: docs/outputs.md §Webhook delivery). The answer's body is read and thrown away unseen:
 * only the status code matters, and nothing the peer says is shown to users (docs/security.md, SSRF).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { describeError } from '../core/errors.js';

export type PostResult = { kind: 'status'; status: number } | { kind: 'error'; reason: string };

export interface WebhookClientOptions {
  readonly url: URL;
  readonly timeoutMs: number;
  /** PEM text of the CA certificates to trust; null = the system store. */
  readonly ca: string | null;
}

export class WebhookClient {
  private readonly o: WebhookClientOptions;
  private readonly agent: HttpAgent;

  constructor(options: WebhookClientOptions) {
    this.o = options;
    const agentOptions = { keepAlive: true, maxSockets: 1 };
    this.agent =
      options.url.protocol === 'https:'
        ? new HttpsAgent({ ...agentOptions, ...(options.ca ? { ca: options.ca } : {}) })
        : new HttpAgent(agentOptions);
  }

  post(body: Buffer, headers: Record<string, string>): Promise<PostResult> {
    const { url, timeoutMs } = this.o;
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: PostResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const req = request(url, {
        method: 'POST',
        agent: this.agent,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(body.length) },
      });
      // The whole exchange, not only socket inactivity: a peer trickling bytes must not hold the outbox.
      const timer = setTimeout(() => {
        finish({ kind: 'error', reason: `no answer within ${timeoutMs} ms` });
        req.destroy();
      }, timeoutMs);
      req.on('error', (err) => finish({ kind: 'error', reason: describeError(err) }));
      req.on('response', (res: IncomingMessage) => {
        res.on('error', () => undefined);
        res.resume();
        // The status counts once the answer is complete, so the connection can carry the next POST.
        res.on('end', () => finish({ kind: 'status', status: res.statusCode ?? 0 }));
        res.on('close', () => finish({ kind: 'status', status: res.statusCode ?? 0 }));
      });
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
