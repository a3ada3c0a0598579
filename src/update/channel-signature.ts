/**
 * The channel manifest's signature (docs/updates.md "Signing a manifest"): a CMS signed-data message in
 * PEM (`openssl cms -sign -nodetach -binary -outform PEM`), signed with the same signer and CA as the
 * bundles, verified here with OpenSSL — the engine RAUC verifies bundles with — against the box's RAUC
 * keyring and nothing else (`-no-CApath -no-CAstore`: a certificate from the system's web CAs signs
 * nothing). Returns the signed content, which channel-manifest.ts then checks.
 */
import { execFile } from 'node:child_process';

/** A manifest is a few hundred bytes; a signed one with its certificates a few KiB. */
export const MAX_SIGNED_MANIFEST_BYTES = 64 * 1024;
const VERIFY_TIMEOUT_MS = 20_000;

export type SignatureCheck =
  | { readonly ok: true; readonly content: Buffer }
  | { readonly ok: false; readonly code: 'UNSIGNED' | 'BAD_SIGNATURE'; readonly message: string };

export async function verifySignedManifest(
  signed: Buffer,
  keyring: string,
  openssl = 'openssl',
): Promise<SignatureCheck> {
  const text = signed.toString('latin1');
  if (!text.includes('-----BEGIN CMS-----') && !text.includes('-----BEGIN PKCS7-----'))
    return { ok: false, code: 'UNSIGNED', message: 'the manifest is not a signed (CMS, PEM) message' };
  return new Promise((resolve) => {
    const child = execFile(
      openssl,
      [
        'cms',
        '-verify',
        '-inform',
        'PEM',
        '-CAfile',
        keyring,
        '-no-CApath',
        '-no-CAstore',
        '-purpose',
        'any',
        '-binary',
      ],
      {
        encoding: 'buffer',
        timeout: VERIFY_TIMEOUT_MS,
        maxBuffer: MAX_SIGNED_MANIFEST_BYTES,
        env: { ...process.env, LC_ALL: 'C' },
      },
      (err, stdout, stderr) => {
        if (!err) return resolve({ ok: true, content: stdout });
        const words = stderr
          .toString('utf8')
          .split('\n')
          .map((l) => l.replace(/^[0-9A-F]+:error:[0-9A-F]+:/, '').trim())
          .filter((l) => l !== '' && l !== 'CMS Verification failure')
          .slice(0, 2)
          .join('; ');
        resolve({
          ok: false,
          code: 'BAD_SIGNATURE',
          message: `the manifest's signature does not verify against this box's keyring${words ? ` (${words.slice(0, 300)})` : ''}`,
        });
      },
    );
    child.stdin?.end(signed);
  });
}
