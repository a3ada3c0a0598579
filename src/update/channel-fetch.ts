/**
 * Fetches the channel's signed manifest (docs/updates.md "The update channel"): one HTTPS GET, bounded in
 * time (a server that answers at a trickle is as good as none) and in size, trusting the configured CA
 * file or, without one, Node's own CA list. Every failure comes back as a code and a sentence for the
 * System view; nothing here throws.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { MAX_SIGNED_MANIFEST_BYTES } from './channel-signature.js';

/** The whole exchange, connection to last byte. */
export const FETCH_TIMEOUT_MS = 30_000;

export type FetchFailureCode = 'UNREACHABLE' | 'TIMEOUT' | 'HTTP_ERROR' | 'TLS' | 'TOO_LARGE';

export type FetchResult =
  | { readonly ok: true; readonly body: Buffer }
  | { readonly ok: false; readonly code: FetchFailureCode; readonly message: string };

export interface FetchOptions {
  /** PEM text of the CA(s) to trust instead of Node's list. */
  readonly ca?: string | undefined;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
}

const TLS_CODES = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|HOSTNAME|ERR_TLS/i;

function failure(err: NodeJS.ErrnoException, url: URL): FetchResult {
  const code = err.code ?? '';
  if (TLS_CODES.test(code) || TLS_CODES.test(err.message))
    return { ok: false, code: 'TLS', message: `the channel's certificate is not trusted (${code || err.message})` };
  return { ok: false, code: 'UNREACHABLE', message: `cannot reach ${url.host} (${code || err.message})` };
}

export function fetchManifest(url: string, options: FetchOptions = {}): Promise<FetchResult> {
  const target = new URL(url);
  const timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? MAX_SIGNED_MANIFEST_BYTES;
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: FetchResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(result);
    };
    const onResponse = (res: IncomingMessage) => {
      if (res.statusCode !== 200) {
        res.resume();
        return done({
          ok: false,
          code: 'HTTP_ERROR',
          message: `the channel answered ${res.statusCode} ${res.statusMessage ?? ''}`.trim(),
        });
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes)
        return done({ ok: false, code: 'TOO_LARGE', message: `the manifest is larger than ${maxBytes} bytes` });
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes)
          done({ ok: false, code: 'TOO_LARGE', message: `the manifest is larger than ${maxBytes} bytes` });
        else chunks.push(chunk);
      });
      res.on('end', () => done({ ok: true, body: Buffer.concat(chunks) }));
      res.on('error', (err) => done(failure(err, target)));
      res.on('aborted', () =>
        done({ ok: false, code: 'UNREACHABLE', message: `${target.host} closed the connection mid-answer` }),
      );
    };
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(
      target,
      { method: 'GET', headers: { accept: 'application/pkcs7-mime, */*' }, ...(options.ca ? { ca: options.ca } : {}) },
      onResponse,
    );
    const timer = setTimeout(
      () =>
        done({
          ok: false,
          code: 'TIMEOUT',
          message: `no complete answer from ${target.host} within ${Math.round(timeoutMs / 1000)} s`,
        }),
      timeoutMs,
    );
    req.on('error', (err) => done(failure(err, target)));
    req.end();
  });
}
