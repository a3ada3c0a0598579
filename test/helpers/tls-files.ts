/**
 * Certificates for the MySQL TLS tests, made by the openssl CLI in a temp dir: a CA, a server
 * certificate it signed for 127.0.0.1 (IP SAN) and a second, unrelated CA (the "wrong CA").
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir.js';

export interface TlsFiles {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  wrongCaCert: string;
  remove(): void;
}

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore', timeout: 30_000 });
}

function makeCa(dir: string, name: string): { cert: string; key: string } {
  const key = join(dir, `${name}-key.pem`);
  const cert = join(dir, `${name}.pem`);
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-subj', `/CN=${name}`, '-days', '2',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  return { cert, key };
}

export function makeTlsFiles(): TlsFiles {
  const dir = tempDir('vigil-tls-');
  const ca = makeCa(dir.path, 'test-ca');
  const wrong = makeCa(dir.path, 'wrong-ca');
  const serverKey = join(dir.path, 'server-key.pem');
  const csr = join(dir.path, 'server.csr');
  const serverCert = join(dir.path, 'server.pem');
  const ext = join(dir.path, 'server.ext');
  writeFileSync(ext, 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n');
  // PKCS#1 RSA key ("traditional"): what MariaDB's TLS library reads in every build.
  openssl(['genrsa', '-traditional', '-out', serverKey, '2048']);
  openssl(['req', '-new', '-key', serverKey, '-out', csr, '-subj', '/CN=vigil-test-mysql']);
  openssl(['x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-out', serverCert, '-days', '2', '-extfile', ext]);
  return { dir: dir.path, caCert: ca.cert, serverCert, serverKey, wrongCaCert: wrong.cert, remove: dir.remove };
}
