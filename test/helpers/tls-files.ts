/**
 * Certificates for the MySQL TLS tests, made by the openssl CLI in a temp dir: a CA, a server
 * certificate it signed for 127.0.0.1 (IP SAN), one it signed for another address (127.0.0.2, the
 * "wrong name") and a second, unrelated CA (the "wrong CA").
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir.js';
import { tool } from './system-tools.js';

export interface TlsFiles {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  wrongCaCert: string;
  otherNameCert: string;
  otherNameKey: string;
  remove(): void;
}

function openssl(args: string[]): void {
  execFileSync(tool('openssl'), args, { stdio: 'ignore', timeout: 30_000 });
}

function makeCa(dir: string, name: string): { cert: string; key: string } {
  const key = join(dir, `${name}-key.pem`);
  const cert = join(dir, `${name}.pem`);
  openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-subj',
    `/CN=${name}`,
    '-days',
    '2',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  return { cert, key };
}

/** A server key (PKCS#1, what MariaDB's TLS library reads in every build) and a certificate the CA signed. */
function makeServer(
  dir: string,
  name: string,
  ca: { cert: string; key: string },
  san: string,
): { cert: string; key: string } {
  const key = join(dir, `${name}-key.pem`);
  const csr = join(dir, `${name}.csr`);
  const cert = join(dir, `${name}.pem`);
  const ext = join(dir, `${name}.ext`);
  writeFileSync(
    ext,
    `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`,
  );
  openssl(['genrsa', '-traditional', '-out', key, '2048']);
  openssl(['req', '-new', '-key', key, '-out', csr, '-subj', `/CN=${name}`]);
  openssl([
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    ca.cert,
    '-CAkey',
    ca.key,
    '-CAcreateserial',
    '-out',
    cert,
    '-days',
    '2',
    '-extfile',
    ext,
  ]);
  return { cert, key };
}

export function makeTlsFiles(): TlsFiles {
  const dir = tempDir('vigil-tls-');
  const ca = makeCa(dir.path, 'test-ca');
  const wrong = makeCa(dir.path, 'wrong-ca');
  const server = makeServer(dir.path, 'server', ca, 'IP:127.0.0.1');
  const other = makeServer(dir.path, 'other-name', ca, 'IP:127.0.0.2,DNS:elsewhere.example');
  return {
    dir: dir.path,
    caCert: ca.cert,
    serverCert: server.cert,
    serverKey: server.key,
    wrongCaCert: wrong.cert,
    otherNameCert: other.cert,
    otherNameKey: other.key,
    remove: dir.remove,
  };
}
