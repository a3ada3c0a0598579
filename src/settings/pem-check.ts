/**
 * api.private_key / api.public_key (contract: "must point to a valid PEM file"). Vigil reads the
 * files and parses them with node:crypto: the private key must be an unencrypted PEM private key,
 * the public key a PEM certificate or public key, and when both parse they must belong together.
 * Messages name the problem, never the file contents.
 */
import { X509Certificate, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { line } from './issues.js';

/** A key or certificate chain is a few KiB; anything larger is not a PEM file Vigil should read. */
export const MAX_PEM_BYTES = 64 * 1024;
/** A local regular file of at most 64 KiB reads in microseconds; a slow one must not hold the settings queue. */
export const PEM_READ_TIMEOUT_MS = 2000;

export type Read = { ok: true; text: string } | { ok: false; reason: string };

/**
 * Opens without blocking (O_NONBLOCK: a FIFO without a writer opens at once), refuses anything
 * but a regular file of at most MAX_PEM_BYTES before reading a byte (/dev/zero, a FIFO, a socket),
 * reads at most MAX_PEM_BYTES + 1 bytes, and gives up after PEM_READ_TIMEOUT_MS.
 */
async function readBounded(path: string): Promise<Read> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const info = await handle.stat();
    if (info.isDirectory()) return { ok: false, reason: 'is a directory, not a PEM file' };
    if (!info.isFile()) return { ok: false, reason: 'is not a regular file' };
    if (info.size > MAX_PEM_BYTES)
      return { ok: false, reason: `is larger than ${MAX_PEM_BYTES} bytes, not a PEM file` };
    const buffer = Buffer.alloc(MAX_PEM_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    // The file may have grown since stat.
    if (bytesRead > MAX_PEM_BYTES)
      return { ok: false, reason: `is larger than ${MAX_PEM_BYTES} bytes, not a PEM file` };
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    if (!text.includes('-----BEGIN ')) return { ok: false, reason: 'is not a PEM file' };
    return { ok: true, text };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** Reads a PEM file within the bounds above; the reason names the problem, never the contents. */
export async function readPem(path: string): Promise<Read> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Read>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, reason: `file cannot be read within ${PEM_READ_TIMEOUT_MS} ms` }),
      PEM_READ_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([readBounded(path), timeout]);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown error';
    if (code === 'ENOENT') return { ok: false, reason: 'file does not exist' };
    if (code === 'EACCES' || code === 'EPERM') return { ok: false, reason: 'file cannot be read (permission denied)' };
    if (code === 'EISDIR') return { ok: false, reason: 'is a directory, not a PEM file' };
    return { ok: false, reason: `file cannot be read (${code})` };
  } finally {
    clearTimeout(timer);
  }
}

function parsePrivate(text: string): { key: KeyObject } | { reason: string } {
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(text)) {
    return { reason: 'is an encrypted private key (Vigil needs it without a passphrase)' };
  }
  try {
    return { key: createPrivateKey({ key: text, format: 'pem' }) };
  } catch {
    return { reason: 'is not a valid PEM private key' };
  }
}

/** A certificate, or a bare public key; a private key file is refused here (it is not public). */
function parsePublic(text: string): { cert: X509Certificate } | { key: KeyObject } | { reason: string } {
  if (text.includes('-----BEGIN CERTIFICATE-----')) {
    try {
      return { cert: new X509Certificate(text) };
    } catch {
      return { reason: 'is not a valid PEM certificate' };
    }
  }
  if (/-----BEGIN (RSA )?PUBLIC KEY-----/.test(text)) {
    try {
      return { key: createPublicKey({ key: text, format: 'pem' }) };
    } catch {
      return { reason: 'is not a valid PEM public key' };
    }
  }
  return { reason: 'must be a PEM certificate or public key' };
}

function sameKey(a: KeyObject, b: KeyObject): boolean {
  const der = (k: KeyObject): Buffer => k.export({ type: 'spki', format: 'der' });
  return der(a).equals(der(b));
}

function belongTogether(pub: { cert: X509Certificate } | { key: KeyObject }, privateKey: KeyObject): boolean {
  try {
    return 'cert' in pub ? pub.cert.checkPrivateKey(privateKey) : sameKey(pub.key, createPublicKey(privateKey));
  } catch {
    return false; // e.g. an RSA certificate against an EC key
  }
}

/** Checks the files named; `check` says which of the two to look at. */
export async function checkPemFiles(
  api: { private_key: string; public_key: string },
  check: { privateKey: boolean; publicKey: boolean },
): Promise<string[]> {
  const out: string[] = [];
  let privateKey: KeyObject | undefined;
  if (check.privateKey) {
    const read = await readPem(api.private_key);
    const parsed = read.ok ? parsePrivate(read.text) : { reason: read.reason };
    if ('reason' in parsed) out.push(line('api.private_key', parsed.reason));
    else privateKey = parsed.key;
  }
  if (check.publicKey) {
    const read = await readPem(api.public_key);
    const parsed = read.ok ? parsePublic(read.text) : { reason: read.reason };
    if ('reason' in parsed) {
      out.push(line('api.public_key', parsed.reason));
    } else if (privateKey) {
      if (!belongTogether(parsed, privateKey))
        out.push(line('api.public_key', 'does not match the private key in api.private_key'));
    }
  }
  return out;
}

/**
 * database.sql_tls_ca_file: a PEM file of one or more CA certificates (the trust anchors for
 * sql_tls_mode "verify"). Every certificate block must parse; a key file is refused.
 */
export async function checkCaFile(path: string, at: string): Promise<string[]> {
  const read = await readPem(path);
  if (!read.ok) return [line(at, read.reason)];
  const reason = caCertificatesProblem(read.text);
  return reason === null ? [] : [line(at, reason)];
}

/** null when the text holds at least one certificate and every certificate block parses. */
export function caCertificatesProblem(text: string): string | null {
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return 'must be a PEM file of CA certificates';
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch {
      return 'is not a valid PEM certificate';
    }
  }
  return null;
}
